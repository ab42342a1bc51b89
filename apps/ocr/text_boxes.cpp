#include "text_boxes.h"

#include <algorithm>
#include <cmath>

namespace ocr {
namespace {

struct Rectangle {
    Point center;
    double width = 0, height = 0;  // along the unit vectors axis and its normal
    Point axis{1, 0};

    std::array<Point, 4> corners() const {
        const Point u{axis.x * width / 2, axis.y * width / 2}, v{-axis.y * height / 2, axis.x * height / 2};
        return {Point{center.x - u.x - v.x, center.y - u.y - v.y},
                Point{center.x + u.x - v.x, center.y + u.y - v.y},
                Point{center.x + u.x + v.x, center.y + u.y + v.y},
                Point{center.x - u.x + v.x, center.y - u.y + v.y}};
    }
};

double cross(const Point& o, const Point& a, const Point& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// The convex hull, counter-clockwise (Andrew's monotone chain).
std::vector<Point> convex_hull(std::vector<Point> points) {
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    if (points.size() < 3) return points;
    std::vector<Point> hull(2 * points.size());
    size_t k = 0;
    for (const Point& p : points) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0) k--;
        hull[k++] = p;
    }
    for (size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {
        while (k >= lower && cross(hull[k - 2], hull[k - 1], points[i]) <= 0) k--;
        hull[k++] = points[i];
    }
    hull.resize(k - 1);
    return hull;
}

// The rectangle of least area holding the hull: one of its sides lies along an edge of the hull.
Rectangle minimum_area_rectangle(const std::vector<Point>& hull) {
    Rectangle best;
    double best_area = INFINITY;
    for (size_t i = 0; i < hull.size(); i++) {
        const Point& a = hull[i];
        const Point& b = hull[(i + 1) % hull.size()];
        const double length = std::hypot(b.x - a.x, b.y - a.y);
        if (length == 0) continue;
        const Point u{(b.x - a.x) / length, (b.y - a.y) / length};
        double lo_u = INFINITY, hi_u = -INFINITY, lo_v = INFINITY, hi_v = -INFINITY;
        for (const Point& p : hull) {
            const double pu = p.x * u.x + p.y * u.y, pv = -p.x * u.y + p.y * u.x;
            lo_u = std::min(lo_u, pu), hi_u = std::max(hi_u, pu), lo_v = std::min(lo_v, pv),
            hi_v = std::max(hi_v, pv);
        }
        const double area = (hi_u - lo_u) * (hi_v - lo_v);
        if (area >= best_area) continue;
        best_area = area;
        const double cu = (lo_u + hi_u) / 2, cv = (lo_v + hi_v) / 2;
        best = Rectangle{Point{cu * u.x - cv * u.y, cu * u.y + cv * u.x}, hi_u - lo_u, hi_v - lo_v, u};
    }
    if (hull.size() == 1) best = Rectangle{hull[0], 0, 0, Point{1, 0}};
    return best;
}

// Corners clockwise (in image coordinates, y down) from the one nearest the top-left.
std::array<Point, 4> ordered_corners(std::array<Point, 4> c) {
    Point center{0, 0};
    for (const Point& p : c) center.x += p.x / 4, center.y += p.y / 4;
    std::sort(c.begin(), c.end(), [&](const Point& a, const Point& b) {
        return std::atan2(a.y - center.y, a.x - center.x) < std::atan2(b.y - center.y, b.x - center.x);
    });
    size_t first = 0;
    for (size_t i = 1; i < 4; i++)
        if (c[i].x + c[i].y < c[first].x + c[first].y) first = i;
    std::rotate(c.begin(), c.begin() + first, c.end());
    return c;
}

bool inside(const std::array<Point, 4>& quad, const Point& p) {
    for (size_t i = 0; i < 4; i++)
        if (cross(quad[i], quad[(i + 1) % 4], p) < 0) return false;
    return true;
}

// The mean probability over the pixels whose centers lie in the box (PaddleOCR's "fast" score).
double mean_inside(const float* probability, int width, int height, const std::array<Point, 4>& box) {
    double x0 = width, y0 = height, x1 = 0, y1 = 0;
    for (const Point& p : box)
        x0 = std::min(x0, p.x), y0 = std::min(y0, p.y), x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
    double sum = 0;
    int count = 0;
    for (int y = std::max(0, int(std::floor(y0))); y <= std::min(height - 1, int(std::ceil(y1))); y++)
        for (int x = std::max(0, int(std::floor(x0))); x <= std::min(width - 1, int(std::ceil(x1))); x++)
            if (inside(box, Point{double(x), double(y)})) sum += probability[size_t(y) * width + x], count++;
    return count ? sum / count : 0;
}

// The pixels of every 8-connected region of the thresholded map, found without recursion.
std::vector<std::vector<Point>> regions_above(const float* probability, int width, int height,
                                              float threshold) {
    std::vector<int> label(size_t(width) * height, -1);
    std::vector<std::vector<Point>> regions;
    std::vector<int> stack;
    for (int start = 0; start < width * height; start++) {
        if (label[start] >= 0 || probability[start] <= threshold) continue;
        regions.emplace_back();
        label[start] = int(regions.size()) - 1;
        stack.push_back(start);
        while (!stack.empty()) {
            const int i = stack.back();
            stack.pop_back();
            const int x = i % width, y = i / width;
            regions.back().push_back(Point{double(x), double(y)});
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int nx = x + dx, ny = y + dy, n = ny * width + nx;
                    if (nx < 0 || ny < 0 || nx >= width || ny >= height || label[n] >= 0 ||
                        probability[n] <= threshold)
                        continue;
                    label[n] = label[start];
                    stack.push_back(n);
                }
        }
    }
    return regions;
}

}  // namespace

std::vector<TextBox> find_text_boxes(const float* probability, int width, int height, int source_width,
                                     int source_height, const BoxOptions& options) {
    std::vector<TextBox> boxes;
    std::vector<std::vector<Point>> regions = regions_above(probability, width, height, options.threshold);
    if (int(regions.size()) > options.max_candidates) regions.resize(options.max_candidates);
    for (const std::vector<Point>& region : regions) {
        Rectangle r = minimum_area_rectangle(convex_hull(region));
        if (std::min(r.width, r.height) < options.min_side) continue;
        const double score = mean_inside(probability, width, height, r.corners());
        if (score < options.box_threshold) continue;
        // Unclipping a rectangle by a distance d gives a rectangle 2d larger each way.
        const double d = r.width * r.height * options.unclip_ratio / (2 * (r.width + r.height));
        r.width += 2 * d;
        r.height += 2 * d;
        if (std::min(r.width, r.height) < options.min_side + 2) continue;
        TextBox box{ordered_corners(r.corners()), score};
        for (Point& p : box.corners) {
            p.x = std::clamp(std::round(p.x * source_width / width), 0.0, double(source_width));
            p.y = std::clamp(std::round(p.y * source_height / height), 0.0, double(source_height));
        }
        boxes.push_back(box);
    }
    std::sort(boxes.begin(), boxes.end(), [](const TextBox& a, const TextBox& b) {
        return a.corners[0].y < b.corners[0].y ||
               (a.corners[0].y == b.corners[0].y && a.corners[0].x < b.corners[0].x);
    });
    return boxes;
}

}  // namespace ocr
