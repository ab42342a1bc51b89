// What workers send back, and how a batch without a reference settles one.

#include <cstring>

#include "tune/tune_runner.h"

namespace tessera::tune {
namespace {

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
    const size_t at = out.size();
    out.resize(at + 8);
    std::memcpy(out.data() + at, &v, 8);
}

void put_f64(std::vector<uint8_t>& out, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    put_u64(out, bits);
}

void put_bytes(std::vector<uint8_t>& out, const void* data, size_t n) {
    put_u64(out, n);
    const auto* p = static_cast<const uint8_t*>(data);
    out.insert(out.end(), p, p + n);
}

class Reader {
public:
    explicit Reader(const std::vector<uint8_t>& b) : bytes_(b) {}
    bool u64(uint64_t* v) {
        if (pos_ + 8 > bytes_.size()) return false;
        std::memcpy(v, bytes_.data() + pos_, 8);
        pos_ += 8;
        return true;
    }
    bool f64(double* v) {
        uint64_t bits;
        if (!u64(&bits)) return false;
        std::memcpy(v, &bits, 8);
        return true;
    }
    bool bytes(std::vector<uint8_t>* out) {
        uint64_t n;
        if (!u64(&n) || n > bytes_.size() - pos_) return false;
        out->assign(bytes_.begin() + std::ptrdiff_t(pos_), bytes_.begin() + std::ptrdiff_t(pos_ + n));
        pos_ += n;
        return true;
    }
    bool done() const { return pos_ == bytes_.size(); }

private:
    const std::vector<uint8_t>& bytes_;
    size_t pos_ = 0;
};

}  // namespace

std::vector<uint8_t> encode_result(const Measurement& m, const std::vector<std::vector<uint8_t>>& outputs) {
    std::vector<uint8_t> out;
    put_u64(out, uint64_t(m.outcome));
    put_f64(out, m.median_ms);
    put_u64(out, m.times_ms.size());
    for (double t : m.times_ms) put_f64(out, t);
    put_bytes(out, m.message.data(), m.message.size());
    put_u64(out, outputs.size());
    for (const auto& o : outputs) put_bytes(out, o.data(), o.size());
    return out;
}

bool decode_result(const std::vector<uint8_t>& bytes, Measurement* m,
                   std::vector<std::vector<uint8_t>>* outputs) {
    Reader r(bytes);
    uint64_t outcome, times, count;
    std::vector<uint8_t> message;
    if (!r.u64(&outcome) || outcome > uint64_t(Outcome::TimedOut) || !r.f64(&m->median_ms) ||
        !r.u64(&times) || times > bytes.size())
        return false;
    m->outcome = Outcome(outcome);
    m->times_ms.resize(times);
    for (double& t : m->times_ms)
        if (!r.f64(&t)) return false;
    if (!r.bytes(&message) || !r.u64(&count) || count > bytes.size()) return false;
    m->message.assign(message.begin(), message.end());
    outputs->resize(count);
    for (auto& o : *outputs)
        if (!r.bytes(&o)) return false;
    return r.done();
}

void settle_reference(MeasureSetup& setup, std::vector<Measurement>& results,
                      std::vector<std::vector<std::vector<uint8_t>>>& outputs) {
    if (!setup.reference.empty()) return;
    std::vector<Type> types;
    for (const auto& f : setup.outputs)
        types.insert(types.end(), f->output_types.begin(), f->output_types.end());
    for (size_t i = 0; i < results.size(); i++) {
        if (results[i].outcome != Outcome::Ok) continue;
        if (setup.reference.empty()) {
            setup.reference = outputs[i];
            continue;
        }
        std::string why;
        if (!outputs_agree(outputs[i], setup.reference, types, &why)) {
            results[i].outcome = Outcome::Wrong;
            results[i].message = why;
        }
    }
}

}  // namespace tessera::tune
