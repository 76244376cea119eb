#include "sfg/runtime/event.hpp"

namespace sfg {

const char* to_string(Op op) {
    switch (op) {
    case Op::read:
        return "r";
    case Op::write:
        return "w";
    case Op::acquire:
        return "acq";
    case Op::release:
        return "rel";
    case Op::vol_read:
        return "vr";
    case Op::vol_write:
        return "vw";
    case Op::barrier_enter:
        return "benter";
    case Op::barrier_exit:
        return "bexit";
    case Op::fork:
        return "fork";
    case Op::join:
        return "join";
    case Op::begin:
        return "begin";
    case Op::end:
        return "end";
    case Op::thread_start:
        return "start";
    case Op::thread_end:
        return "exit";
    }
    return "?";
}

std::uint32_t SymbolTable::intern(std::string_view name) {
    auto it = ids_.find(std::string(name));
    if (it != ids_.end())
        return it->second;
    auto id = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
    ids_.emplace(names_.back(), id);
    return id;
}

std::uint32_t SymbolTable::find(std::string_view name) const {
    auto it = ids_.find(std::string(name));
    return it == ids_.end() ? no_object : it->second;
}

} // namespace sfg
