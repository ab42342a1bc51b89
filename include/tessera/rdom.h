#pragma once
// RDom: a reduction domain, the (possibly multi-dimensional, possibly predicated) set of points
// an update definition iterates over, innermost dimension first. RVar: one of its dimensions.

#include <memory>
#include <string>
#include <vector>

#include "tessera/expr.h"

namespace tessera {

namespace lang {
struct ReductionDomainContents;
struct BufferContents;
struct ParameterContents;
}  // namespace lang

class ImageParam;
template <typename T, int Dims>
class Buffer;

// A range [min, min + extent): the bounds of one RDom dimension.
struct Range {
    Expr min, extent;
    Range() = default;
    Range(Expr min_, Expr extent_) : min(std::move(min_)), extent(std::move(extent_)) {}
};
using Region = std::vector<Range>;

class RVar {
public:
    RVar() = default;
    RVar(std::shared_ptr<lang::ReductionDomainContents> domain, int index)
        : domain_(std::move(domain)), index_(index) {}
    explicit RVar(const std::string& name);  // a free-standing RVar name, for scheduling

    const std::string& name() const;
    Expr min() const;
    Expr extent() const;
    const std::shared_ptr<lang::ReductionDomainContents>& domain() const { return domain_; }
    operator Expr() const;

private:
    std::shared_ptr<lang::ReductionDomainContents> domain_;
    int index_ = 0;
    std::string free_name_;
};

class RDom {
public:
    RDom() = default;
    explicit RDom(const Region& region, const std::string& name = "");
    // RDom(min0, extent0, min1, extent1, ..., [name]): any number of dimensions.
    template <typename... Args>
    RDom(Expr min0, Expr extent0, Args&&... rest) {
        Region region{Range(std::move(min0), std::move(extent0))};
        std::string name;
        collect(region, name, std::forward<Args>(rest)...);
        init(region, name);
    }
    // The domain of a buffer or an image parameter: every element.
    template <typename T, int Dims>
    explicit RDom(const Buffer<T, Dims>& b) : RDom(b.contents()) {}
    explicit RDom(const ImageParam& p);
    explicit RDom(const std::shared_ptr<lang::BufferContents>& b);

    bool defined() const { return contents_ != nullptr; }
    bool same_as(const RDom& other) const { return contents_ == other.contents_; }
    int dimensions() const;
    const std::string& name() const;
    RVar operator[](int i) const;
    operator RVar() const;  // a one-dimensional RDom as its RVar
    operator Expr() const;  // a one-dimensional RDom as its RVar's value

    // Restricts the domain to the points where the predicate holds. Adds to earlier predicates.
    RDom& where(Expr predicate);

    const std::shared_ptr<lang::ReductionDomainContents>& contents() const { return contents_; }

    RVar x, y, z, w;

private:
    static void collect(Region&, std::string&) {}
    static void collect(Region&, std::string& name, const std::string& n) { name = n; }
    static void collect(Region&, std::string& name, const char* n) { name = n; }
    template <typename... Args>
    static void collect(Region& region, std::string& name, Expr min, Expr extent, Args&&... rest) {
        region.emplace_back(std::move(min), std::move(extent));
        collect(region, name, std::forward<Args>(rest)...);
    }
    void init(const Region& region, const std::string& name);
    std::shared_ptr<lang::ReductionDomainContents> contents_;
};

}  // namespace tessera
