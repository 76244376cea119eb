#include "sfg/runtime/net.hpp"

#include <algorithm>
#include <cassert>

namespace sfg {

namespace {
std::string join_names(const std::vector<std::string>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i)
            out += ',';
        out += v[i];
    }
    return out;
}
} // namespace

std::string Mechanism::label() const {
    switch (kind) {
    case MechKind::fork:
        return "fork(" + thread + "->" + join_names(threads) + ")";
    case MechKind::join:
        return "join(" + join_names(threads) + "->" + thread + ")";
    case MechKind::volatile_:
        return value ? name + "==" + std::to_string(*value) : name;
    default:
        return name;
    }
}

const char* to_string(MechKind k) {
    switch (k) {
    case MechKind::lock:
        return "lock";
    case MechKind::volatile_:
        return "volatile";
    case MechKind::barrier:
        return "barrier";
    case MechKind::fork:
        return "fork";
    case MechKind::join:
        return "join";
    case MechKind::queue:
        return "queue";
    }
    return "?";
}

std::string AccessMode::label() const {
    switch (kind) {
    case ModeKind::EX:
        return "EX(" + join_names(threads) + ")";
    case ModeKind::RS:
        return "RS(" + join_names(threads) + ")";
    case ModeKind::LOCK:
        return "LOCK_" + lock + "(" + join_names(threads) + ")";
    }
    return "?";
}

const char* to_string(PlaceKind k) {
    switch (k) {
    case PlaceKind::Acc:
        return "Acc";
    case PlaceKind::PostSnd:
        return "PostSnd";
    case PlaceKind::PreRcv:
        return "PreRcv";
    }
    return "?";
}

const char* to_string(TransitionKind k) {
    switch (k) {
    case TransitionKind::snd:
        return "snd";
    case TransitionKind::sync:
        return "sync";
    case TransitionKind::rcv:
        return "rcv";
    }
    return "?";
}

bool Net::enabled(const Marking& m, std::size_t transition) const {
    const Transition& r = transitions[transition];
    auto marked = [&](std::uint32_t p) { return std::binary_search(m.begin(), m.end(), p); };
    return std::all_of(r.pre.begin(), r.pre.end(), marked) &&
           std::none_of(r.post.begin(), r.post.end(), marked);
}

Marking Net::fire(const Marking& m, std::size_t transition) const {
    assert(enabled(m, transition));
    const Transition& r = transitions[transition];
    Marking out;
    out.reserve(m.size() + r.post.size());
    for (std::uint32_t p : m)
        if (std::find(r.pre.begin(), r.pre.end(), p) == r.pre.end())
            out.push_back(p);
    out.insert(out.end(), r.post.begin(), r.post.end());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace sfg
