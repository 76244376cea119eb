// A compiled specification as a program carries it (docs/enforcers.md): the threads, locks,
// volatiles, barriers, queues and variables a `.sfg` file declares, and each annotated variable's
// discipline G = (A, S, I, O). `sfgc SPEC --emit-cpp` writes it as static data (spec_data below);
// the nets N(G) are built from it once, when the spec is first used (thesis Figure 4.11).
#pragma once

#include "sfg/runtime/net.hpp" // ModeKind, MechKind

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// The layout of spec_data. A header generated for another version does not compile against
// this runtime: it checks this number with #error.
#define SFG_ABI_VERSION 1
// spec_data::edge carries a volatile's value (v==K): a header with a value label needs it.
#define SFG_SPEC_VALUES 1
// spec_data::spec lists the queues, and an edge may be a queue's q(o): a header with a queue
// needs it.
#define SFG_SPEC_QUEUES 1
// spec_data::edge may be an edge family (sfg/runtime/net.hpp, a pool's [EX(each W)]^m): a header
// with one needs it.
#define SFG_SPEC_FAMILIES 1

namespace sfg {

// The static data of a generated header: plain aggregates of indices into one table of names
// and one table of index lists, so that the header is constant data with no code to run.
namespace spec_data {

// A run of `count` entries of `lists` from `first`.
struct list {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
};

struct mode {
    ModeKind kind;
    list threads;          // names
    std::uint32_t lock{0}; // LOCK_m(T): the name m (thesis §5.2); EX and RS: names[0] ("")
};

// An edge from -z-> to; z resolved as in the compiled net: a lock, volatile, barrier or queue by
// name, fork(thread -> threads) or join(threads -> thread).
struct edge {
    std::uint32_t from, to; // mode indices of the variable
    MechKind kind;
    std::uint32_t name;   // lock, volatile, barrier or queue name; names[0] is "" for fork/join
    std::uint32_t thread; // fork: the forker; join: the joiner; else names[0]
    list threads;         // fork: the forked; join: the joined; barrier: its threads
    // A volatile's v==K (thesis §5.1): K. Last, with defaults, so that headers without values
    // stay valid ABI-1 data.
    bool has_value = false;
    std::int64_t value = 0;
    // An edge family (EdgeFamily, net.hpp): every mode of `family_from` to every mode of
    // `family_to` (mode indices, in lists), when family_from is not empty; from and to are then 0.
    // Last, with defaults, as the value.
    list family_from{}, family_to{};
};

struct variable {
    std::uint32_t name;
    bool annotated; // false: declared without a discipline
    list modes;     // into spec::modes
    list edges;     // into spec::edges
    list in, out;   // mode indices (of this variable), in lists
};

struct barrier {
    std::uint32_t name;
    list threads;
};

struct spec {
    const char* file;   // the .sfg file as given to sfgc
    std::uint64_t hash; // FNV-1a of the file's bytes
    const char* const* names;
    std::size_t name_count;
    const std::uint32_t* lists;
    std::size_t list_count;
    list threads, locks, volatiles; // names, in lists
    const barrier* barriers;
    std::size_t barrier_count;
    const mode* modes;
    std::size_t mode_count;
    const edge* edges;
    std::size_t edge_count;
    const variable* variables;
    std::size_t variable_count;
    // The queues (thesis §5.1), names in lists. Last, with a default, so that headers without
    // queues stay valid ABI-1 data.
    list queues{};
};

} // namespace spec_data

// FNV-1a, 64 bits: the spec hash sfgc writes into a generated header.
constexpr std::uint64_t spec_hash(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

namespace detail {
struct SpecImpl;
} // namespace detail

// A specification the live runtime checks against (sfg.hpp's session). Cheap to copy. Switched
// off (SFG_DISABLE, sfg.hpp), nothing is built and nothing is linked: only the constructor is left.
class spec {
public:
#if defined(SFG_DISABLE)
    explicit constexpr spec(const spec_data::spec&) noexcept {}
#else
    // Builds the nets of the annotated variables. Throws std::invalid_argument when the data
    // is inconsistent (an index out of range): generated headers never are.
    explicit spec(const spec_data::spec& data);

    const std::string& file() const;
    std::uint64_t hash() const;
    // The names the specification declares, in declaration order.
    const std::vector<std::string>& threads() const;
    const std::vector<std::string>& locks() const;
    const std::vector<std::string>& volatiles() const;
    const std::vector<std::string>& barriers() const;
    const std::vector<std::string>& queues() const;
    const std::vector<std::string>& variables() const; // annotated or not

    // The runtime's view (not for users).
    const detail::SpecImpl& impl() const {
        return *impl_;
    }

private:
    std::shared_ptr<const detail::SpecImpl> impl_;
#endif
};

} // namespace sfg
