#include "sfg/runtime/event.hpp"

namespace sfg {

const char* to_string(Op op) {
    return op_info(op).spelling.data(); // literals: NUL-terminated
}

const char* to_string(Namespace n) {
    static constexpr const char* names[namespace_count_all] = {
        "thread", "variable", "lock", "volatile", "barrier", "location", "queue", "cond"};
    return names[static_cast<std::size_t>(n)];
}

std::uint32_t* SymbolTable::slot(std::string_view name) {
    const std::size_t mask = index_.size() - 1;
    for (std::size_t i = std::hash<std::string_view>{}(name)&mask;; i = (i + 1) & mask)
        if (index_[i] == no_object || names_[index_[i]] == name)
            return &index_[i];
}

std::uint32_t SymbolTable::intern(std::string_view name) {
    std::uint32_t* s = slot(name);
    if (*s != no_object)
        return *s;
    const auto id = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
    *s = id;
    if (2 * names_.size() > index_.size())
        reindex();
    return id;
}

std::uint32_t SymbolTable::find(std::string_view name) const {
    return const_cast<SymbolTable*>(this)->slot(name)[0];
}

void SymbolTable::reindex() {
    std::size_t n = 16;
    while (n < 2 * names_.size() + 2)
        n *= 2;
    index_.assign(n, no_object);
    for (std::size_t i = 0; i < names_.size(); ++i)
        *slot(names_[i]) = static_cast<std::uint32_t>(i);
}

} // namespace sfg
