// Strong index types of the enforcer's internals: which table an index points into is part of
// its type, and "no such thing" is an explicit none() instead of -1.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace sfg::enforce {

template <class Tag>
struct Index {
    static constexpr std::uint32_t none_value = 0xffffffffu;
    std::uint32_t v = none_value;

    constexpr Index() = default;
    constexpr explicit Index(std::uint32_t i) : v(i) {}
    // From a table size or a net's index (net.hpp); a net's absent index becomes none().
    template <class I>
    static constexpr Index at(I i) {
        return Index(static_cast<std::uint32_t>(i));
    }
    static constexpr Index at(std::optional<std::uint32_t> i) { return i ? Index(*i) : Index(); }
    static constexpr Index none() { return Index(); }
    constexpr bool valid() const { return v != none_value; }
    constexpr std::size_t ix() const { return v; }
    friend constexpr auto operator<=>(Index, Index) = default;
};

// The enforcer's own numbering of the threads its nets name (NetNames); trace thread ids map to
// it through NameResolver.
using NetThread = Index<struct NetThreadTag>;
using PlaceIx = Index<struct PlaceTag>;           // a place of a net (Figure 4.11)
using TransitionIx = Index<struct TransitionTag>; // a transition of a net
using ModeIx = Index<struct ModeTag>;             // an access mode of a discipline
using EdgeIx = Index<struct EdgeTag>;             // an SFG edge a -z-> b
using MechIx = Index<struct MechTag>;             // a mechanism z, interned by NetNames
using VarIx = Index<struct VarTag>;               // an annotated variable
using ShapeIx = Index<struct ShapeTag>;           // a NetShape
using GroupIx = Index<struct GroupTag>;           // a OneTokenGroups group
using MarkingIx = Index<struct MarkingTag>;       // a marking of a CandidateAutomaton
using SetIx = Index<struct SetTag>;               // a candidate set of a CandidateAutomaton
using TrListIx = Index<struct TrListTag>;         // the transitions a sync op may fire, likewise

// A vector indexed by one index type only.
template <class Ix, class T>
class IndexVec {
public:
    using value_type = T;
    IndexVec() = default;
    explicit IndexVec(std::size_t n, const T& value = T()) : items_(n, value) {}

    T& operator[](Ix i) { return items_[i.ix()]; }
    const T& operator[](Ix i) const { return items_[i.ix()]; }
    std::size_t size() const { return items_.size(); }
    bool empty() const { return items_.empty(); }
    Ix next_index() const { return Ix::at(items_.size()); }
    void push_back(T x) { items_.push_back(std::move(x)); }
    template <class... A>
    T& emplace_back(A&&... a) {
        return items_.emplace_back(std::forward<A>(a)...);
    }
    void assign(std::size_t n, const T& value) { items_.assign(n, value); }
    void resize(std::size_t n, const T& value = T()) { items_.resize(n, value); }
    void clear() { items_.clear(); }
    std::size_t capacity() const { return items_.capacity(); }
    T& back() { return items_.back(); }
    auto begin() { return items_.begin(); }
    auto end() { return items_.end(); }
    auto begin() const { return items_.begin(); }
    auto end() const { return items_.end(); }
    // The indices 0 .. size() - 1.
    struct Range {
        std::uint32_t n;
        struct It {
            std::uint32_t i;
            Ix operator*() const { return Ix(i); }
            It& operator++() {
                ++i;
                return *this;
            }
            bool operator!=(const It& o) const { return i != o.i; }
        };
        It begin() const { return {0}; }
        It end() const { return {n}; }
    };
    Range indices() const { return {static_cast<std::uint32_t>(items_.size())}; }

private:
    std::vector<T> items_;
};

} // namespace sfg::enforce
