#include "onednn_conv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <sstream>

namespace tessera_apps {

using dnnl::memory;
using tag = memory::format_tag;

struct OneDnnConv::State {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward conv;
    memory src, weights, dst;
    memory::dims dst_dims;
};

namespace {

// The user's tensor reordered into the layout the primitive wants, once; the same memory if they
// agree.
memory in_layout(dnnl::engine& engine, dnnl::stream& stream, const memory::desc& wanted,
                 const memory::dims& dims, tag user_tag, const std::vector<float>& data) {
    memory user(memory::desc(dims, memory::data_type::f32, user_tag), engine,
                const_cast<float*>(data.data()));
    if (wanted == user.get_desc()) return user;
    memory converted(wanted, engine);
    dnnl::reorder(user, converted).execute(stream, user, converted);
    stream.wait();
    return converted;
}

// "abcd, blocks 8 on dim 1" and the like: the order of the strides and the inner blocks.
std::string describe(const memory::desc& md) {
    const auto& blocking = md.data.format_desc.blocking;
    std::ostringstream out;
    out << "strides";
    for (int d = 0; d < md.data.ndims; d++) out << (d ? "," : " ") << blocking.strides[d];
    for (int b = 0; b < blocking.inner_nblks; b++)
        out << ", block " << blocking.inner_blks[b] << " of dim " << blocking.inner_idxs[b];
    return out.str();
}

}  // namespace

OneDnnConv::OneDnnConv(const ConvShape& s, const std::vector<float>& input, const std::vector<float>& weights)
    : state_(std::make_unique<State>()) {
    State& st = *state_;
    const memory::dims src_dims{1, s.in_channels, s.height, s.width};
    const memory::dims weight_dims{s.out_channels, s.in_channels, s.kernel, s.kernel};
    st.dst_dims = {1, s.out_channels, s.height, s.width};
    auto any = [](const memory::dims& dims) { return memory::desc(dims, memory::data_type::f32, tag::any); };
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::convolution_direct, any(src_dims), any(weight_dims),
                                         any(st.dst_dims), {1, 1}, {s.pad, s.pad}, {s.pad, s.pad});
    st.pd = dnnl::convolution_forward::primitive_desc(desc, st.engine);
    st.conv = dnnl::convolution_forward(st.pd);
    st.src = in_layout(st.engine, st.stream, st.pd.src_desc(), src_dims, tag::nchw, input);
    st.weights = in_layout(st.engine, st.stream, st.pd.weights_desc(), weight_dims, tag::oihw, weights);
    st.dst = memory(st.pd.dst_desc(), st.engine);
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::run() {
    State& st = *state_;
    st.conv.execute(st.stream,
                    {{DNNL_ARG_SRC, st.src}, {DNNL_ARG_WEIGHTS, st.weights}, {DNNL_ARG_DST, st.dst}});
    st.stream.wait();
}

std::vector<float> OneDnnConv::output_nchw() {
    State& st = *state_;
    std::vector<float> out(size_t(st.dst_dims[1]) * st.dst_dims[2] * st.dst_dims[3]);
    memory user(memory::desc(st.dst_dims, memory::data_type::f32, tag::nchw), st.engine, out.data());
    dnnl::reorder(st.dst, user).execute(st.stream, st.dst, user);
    st.stream.wait();
    return out;
}

std::string OneDnnConv::description() const {
    const State& st = *state_;
    return std::string(st.pd.impl_info_str()) + "; src " + describe(st.pd.src_desc()) + "; weights " +
           describe(st.pd.weights_desc()) + "; dst " + describe(st.pd.dst_desc());
}

std::string OneDnnConv::version() {
    const dnnl_version_t* v = dnnl_version();
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace tessera_apps
