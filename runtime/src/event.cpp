#include "sfg/runtime/event.hpp"

namespace sfg {

const char* to_string(Op op) {
    return op_info(op).spelling.data(); // literals: NUL-terminated
}

const char* to_string(Namespace n) {
    static constexpr const char* names[namespace_count] = {"thread",   "variable", "lock",
                                                           "volatile", "barrier",  "location"};
    return names[static_cast<std::size_t>(n)];
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
