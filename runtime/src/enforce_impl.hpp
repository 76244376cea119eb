// Internals of sfg::Enforcer (enforce.hpp), shared by enforce.cpp (events, index),
// enforce_markings.cpp (candidate-marking simulation) and enforce_explain.cpp (explanations).
#pragma once

#include "sfg/runtime/enforce.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace sfg {

namespace enforce_detail {

using Gid = std::int32_t; // the enforcer's own thread id (names from nets); -1: none
inline constexpr std::int32_t unresolved = -2;

// A key's low bit: snd 0, rcv 1.
inline std::uint32_t role_bit(Role role) {
    return role == Role::rcv ? 1 : 0;
}

// A mechanism some net mentions, interned by kind and canonical label.
struct MechInfo {
    MechKind kind = MechKind::lock;
    std::string name;         // lock, volatile or barrier name
    Gid thread = -1;          // fork: the forker t; join: the joiner t
    std::vector<Gid> threads; // fork: U; join: S (sorted gids)
    std::string label;        // Mechanism::label()
};

// A net's structure with the identity of its mechanisms abstracted away: variables whose nets
// differ only in which lock (volatile, ...) they use share one Shape. Places and transitions are
// indexed as in the net.
struct Shape {
    Net net;                              // a representative (labels, edges' from/to)
    std::vector<std::int32_t> place_gid;  // Pid(p) as a gid
    std::vector<std::int32_t> acc_gid;    // Acc[t:a]: t's gid; other places: -1
    std::vector<std::uint8_t> acc_ex;     // Acc[t:a] with a = EX(t)
    std::vector<std::int32_t> place_mode; // the mode b with p in Q(b) (Definition 4.3.6)
    std::vector<std::uint32_t> tr_off;    // transition i: pre [tr_off[i], tr_mid[i]),
    std::vector<std::uint32_t> tr_mid;    //               post [tr_mid[i], tr_off[i + 1])
    std::vector<std::int32_t> tr_places;
    std::vector<std::vector<std::int32_t>> place_syncs; // sync transitions with p in their pre
    // Fast path for one-token markings (every mode of a lock or volatile discipline has one
    // thread): single_next[r] = q when firing r on {•r} and closing under [SYNC] gives {q};
    // -1 when r's pre-set or the result is not a single place.
    std::vector<std::int32_t> single_next;
    std::vector<std::vector<std::int32_t>> mode_acc; // P(a), sorted
    std::vector<std::vector<Gid>> mode_gids;         // Tid(a)
    std::vector<std::string> mode_labels;            // "EX(t0)", "EX(t0)#3" when ambiguous
    std::vector<std::vector<std::int32_t>> initial;  // M0, sorted, distinct

    // One-token shapes: every mode has one thread and every initial marking one place, so every
    // reachable marking is one place (Lemma 4.3.10) and a candidate set is a set of places. Their
    // variables are simulated lazily, per Group (below). Rows: the Acc places, where a variable's
    // candidates stand after a memory op; columns: every place a candidate can be (PostSnd
    // places are left at once by [SYNC], so they are not columns).
    bool one_token = false;
    std::vector<std::int32_t> place_row, row_place;       // Acc place <-> row (-1: not a row)
    std::vector<std::int32_t> place_col, col_place;       // place <-> column (-1: not a column)
    std::vector<std::uint64_t> permit_read, permit_write; // by gid: rows that permit the access
    std::uint64_t initial_rows = 0;                       // M0 as rows

    std::span<const std::int32_t> pre(int r) const {
        return {tr_places.data() + tr_off[static_cast<std::size_t>(r)],
                tr_places.data() + tr_mid[static_cast<std::size_t>(r)]};
    }
    std::span<const std::int32_t> post(int r) const {
        return {tr_places.data() + tr_mid[static_cast<std::size_t>(r)],
                tr_places.data() + tr_off[static_cast<std::size_t>(r) + 1]};
    }
    // Whether mode a permits `write ? w : r` by thread g ([WRITE/READ EXCLUSIVE], [READ SHARED]).
    bool permits(int mode, Gid g, bool write) const;
};

// A set of distinct candidate markings, stored flat: [n, p1..pn] per marking, pi sorted.
struct Candidates {
    std::vector<std::int32_t> data;
    std::uint32_t count = 0;

    void clear() {
        data.clear();
        count = 0;
    }
    void push(std::span<const std::int32_t> m) {
        const std::size_t at = data.size();
        data.resize(at + 1 + m.size());
        data[at] = static_cast<std::int32_t>(m.size());
        std::copy(m.begin(), m.end(), data.begin() + static_cast<std::ptrdiff_t>(at + 1));
        ++count;
    }
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = 0; i < data.size(); i += static_cast<std::size_t>(data[i]) + 1)
            f(std::span<const std::int32_t>(data.data() + i + 1,
                                            static_cast<std::size_t>(data[i])));
    }
};

struct Var {
    std::string name;
    std::uint32_t shape = 0;
    std::uint32_t edge_mech = 0; // mech slot of edge e at Impl::edge_mechs_[edge_mech + e]
    Candidates cands;            // eager variables; lazy ones only while a violation is described
    std::uint32_t violations = 0;
    std::int32_t group = -1; // a lazy (one-token) variable's Group; -1: an eager variable
};

// The state of a lazy variable, in an array of its own (a memory op reads nothing else of the
// variable; 16 bytes, so a thousand fit in L1): its candidates as of its last memory op, at time
// `since`: the places of the rows in `rows`.
struct alignas(16) Lazy {
    std::uint64_t since = 0;
    std::uint64_t rows = 0;
};

// A trace variable id resolved: our variable and its group, read in one load.
struct VarRef {
    std::int32_t var = unresolved;
    std::int32_t group = -1;
};

// The variables of one one-token shape whose edges carry the same mechanisms: they see the same
// sync ops, so one table serves them all. A sync op maps each candidate place to itself
// ([SKIP]) plus at most one successor ([SEND]/[RECEIVE], closed by [SYNC]), so the candidates of
// a variable whose memory op at time i left it on the places R are, now,
//     { q | q reachable from some p in R through the sync ops after i },
// and starting earlier reaches at least as much (skip the ops in between). Hence q is a
// candidate iff i < reach[p][q] for some p in R (or q = p), where reach[p][q] is the latest
// time from which p still reaches q: a sync op at time k with transitions p' -> q' sets
//     reach[p][q'] = max(reach[p][q'], p = p' ? k : reach[p][p']),
// which costs rows x transitions once per op, however many variables share the group (thesis
// §5.3's linear cost is gone even for the variables of one lock), and a memory op reads
// |R| x |permitting places| entries. Times are the enforcer's event count.
//
// Columns that the same rules always write from the same sources hold the same values (all start
// at 0), so they share storage: in [tl]^m, the PreRcv places that one thread's rel(m) fills
// (one per possible next owner) are one column, and rel(m) updates one column, not eight.
struct Group {
    std::uint32_t shape = 0;
    std::uint32_t cols = 0;
    std::uint32_t rows = 0;
    // The tables every op on the group reads, in two pools in group order (Impl::reach_pool,
    // Impl::group_u32), so that a group's state is a few adjacent cache lines and variables
    // visited in order stream through memory (bench_enforce's round robin):
    //   reach_pool[reach_at ..]: reach[p][q] at [column[q] * rows + row(p)], rows x cols words;
    //   group_u32[u32_at ..]: the column of each row's own place (rows entries), then
    //   summary_begin (cols + 1 entries), then the summaries.
    std::size_t reach_at = 0;
    std::size_t u32_at = 0;
    std::vector<std::int32_t> column; // place -> storage column (-1: not a candidate place)
    // Summary columns (after the places' columns; add_group): the maximum of a set of columns
    // that some op's rules all merge into one destination. Column c is a member of
    // summaries[summary_begin[c] .. summary_begin[c + 1]), which are merged from c when it grows.
};

// One update of a group's table: reach[p][dst] = max(reach[p][dst], reach[p][src]), and
// reach[own][dst] = now when the source is the Acc place of row `own` (-1: none).
struct Rule {
    std::uint32_t src = 0, dst = 0;
    std::int32_t own = -1;
    friend bool operator==(const Rule&, const Rule&) = default;
};

// An index entry: the transitions of variable `var` (a range of Impl::sub_trs) that an op with
// a given (mechanism, thread, role) key may fire; for a group (`var` = group id | group_bit),
// its rules (a range of Impl::group_rules).
inline constexpr std::uint32_t group_bit = 0x80000000u;
struct Sub {
    std::uint32_t var = 0;
    std::uint32_t tr_begin = 0;
    std::uint32_t tr_count = 0;
};

inline std::uint64_t index_key(std::uint32_t mech, Gid thread, Role role) {
    return (std::uint64_t{mech} << 32) | (std::uint64_t(static_cast<std::uint32_t>(thread)) << 1) |
           role_bit(role);
}

// Marking operations on sorted place lists (elementary firing rule, thesis §4.3.1).
bool enabled(const Shape& s, std::span<const std::int32_t> m, int r);
// Fires r (enabled) on m into out, then fires every sync transition that becomes enabled
// ([SYNC] as an eager ε-move: the marking before it is •sync, which permits nothing else,
// Lemma 4.3.10).
void fire_closed(const Shape& s, std::span<const std::int32_t> m, int r,
                 std::vector<std::int32_t>& out, std::vector<std::int32_t>& tmp);
std::uint64_t hash_marking(std::span<const std::int32_t> m);

// Deduplicating builder of a candidate set: a linear scan while it is small, open addressing on
// marking hashes beyond that.
class CandidateBuilder {
public:
    void start(Candidates& out, std::size_t expected);
    bool add(std::span<const std::int32_t> m); // false when already present

private:
    static constexpr std::size_t linear_limit = 16;
    Candidates* out_ = nullptr;
    bool hashed_ = false;
    std::vector<std::uint32_t> offsets_; // data offset + 1 of each marking; 0 = empty slot
    std::size_t mask_ = 0;
};

} // namespace enforce_detail

struct Enforcer::Impl {
    using Gid = enforce_detail::Gid;

    EnforceOptions options;
    std::vector<enforce_detail::Var> vars;
    std::vector<enforce_detail::Lazy> lazy; // by variable
    std::unordered_map<std::string, std::uint32_t> var_ids;
    std::vector<enforce_detail::Shape> shapes;
    std::vector<enforce_detail::Group> groups;
    std::vector<std::uint64_t> reach_pool;                         // Group::reach_at
    std::vector<std::uint32_t> group_u32;                          // Group::u32_at
    std::map<std::vector<std::uint32_t>, std::uint32_t> group_ids; // shape, edge mechs -> group
    std::unordered_map<std::string, std::uint32_t> shape_ids;      // structural key -> shape
    std::vector<std::uint32_t> edge_mechs;

    // Names from nets.
    std::vector<std::string> thread_names;
    std::unordered_map<std::string, Gid> thread_ids;
    std::vector<enforce_detail::MechInfo> mechs;
    std::unordered_map<std::string, std::uint32_t> mech_ids; // "kind:label" -> slot
    std::vector<std::vector<std::uint32_t>> fork_by;         // forker gid -> fork mech slots
    std::vector<std::vector<std::uint32_t>> join_by;         // joiner gid -> join mech slots
    std::vector<std::vector<std::uint32_t>> join_member;     // u -> join(S -> t) slots with u in S

    // The per-mechanism index (§5.3 without [SLOW SYNC]'s linear cost): key -> subs range.
    struct Pending {
        std::uint64_t key;
        enforce_detail::Sub sub;
    };
    std::vector<Pending> pending;
    std::vector<std::int32_t> sub_trs;
    std::vector<enforce_detail::Rule> group_rules;
    // Frozen form, laid out by mechanism slot so that lookups touch a few adjacent entries (no
    // hashing): the (thread, role) keys of mechanism m are keys[key_begin[m] .. key_begin[m+1]),
    // sorted; each names its range of subs.
    struct Key {
        std::uint32_t thread_role; // gid << 1 | role
        std::uint32_t sub_begin, sub_end;
    };
    std::vector<std::uint32_t> key_begin;
    std::vector<Key> keys;
    std::vector<enforce_detail::Sub> subs;
    struct Range {
        std::uint32_t begin = 0, end = 0;
    };
    std::vector<Range> dense_keys; // [mech * key_stride + thread_role] -> its subs
    std::size_t key_stride = 0;
    bool index_dirty = false;
    // Shape::permit_read / permit_write of every group, flat: rows permitting an access of
    // thread g at [(group * 2 + write) * permit_stride + g] (every gid is below the stride).
    std::vector<std::uint64_t> permits;
    std::size_t permit_stride = 0;

    // Trace ids -> ours, resolved by name on first sight (unresolved until then).
    const Symbols* syms = nullptr;
    std::vector<std::int32_t> thread_map, lock_map, volatile_map, barrier_map;
    std::vector<enforce_detail::VarRef> var_map;

    std::vector<EnforceViolation> first, all;
    Stats stats;

    // Scratch.
    enforce_detail::Candidates next, successors;
    enforce_detail::CandidateBuilder builder;
    std::vector<std::int32_t> fired, tmp;
    std::vector<enforce_detail::Sub> gathered;
    std::vector<std::int32_t> merged_trs;
    std::vector<enforce_detail::Rule> merged_rules;
    std::vector<Gid> set_gids;

    // enforce.cpp
    Gid intern_thread(const std::string& name);
    std::uint32_t intern_mech(const Mechanism& m);
    std::uint32_t intern_shape(const Net& net);
    bool add_variable(std::string name, const Net& net);
    // A new group for a one-token variable: storage columns and its index entries.
    std::uint32_t add_group(const enforce_detail::Var& v);
    void freeze_index();
    std::uint64_t* reach_of(const enforce_detail::Group& g) {
        return reach_pool.data() + g.reach_at;
    }
    const std::uint64_t* reach_of(const enforce_detail::Group& g) const {
        return reach_pool.data() + g.reach_at;
    }
    const std::uint32_t* row_column_of(const enforce_detail::Group& g) const {
        return group_u32.data() + g.u32_at;
    }
    const std::uint32_t* summary_begin_of(const enforce_detail::Group& g) const {
        return group_u32.data() + g.u32_at + g.rows;
    }
    void reset_maps(const Symbols& s);
    // Trace ids -> ours: one load once resolved; the *_slow forms resolve by name.
    Gid thread_of(ThreadId t) {
        return t < thread_map.size() && thread_map[t] != enforce_detail::unresolved
                   ? thread_map[t]
                   : thread_slow(t);
    }
    enforce_detail::VarRef var_of(ObjId x) {
        return x < var_map.size() && var_map[x].var != enforce_detail::unresolved ? var_map[x]
                                                                                  : var_slow(x);
    }
    std::int32_t mech_of(std::vector<std::int32_t>& map, const SymbolTable& table, ObjId id,
                         MechKind kind) {
        return id < map.size() && map[id] != enforce_detail::unresolved
                   ? map[id]
                   : mech_slow(map, table, id, kind);
    }
    Gid thread_slow(ThreadId t);
    enforce_detail::VarRef var_slow(ObjId x);
    std::int32_t mech_slow(std::vector<std::int32_t>& map, const SymbolTable& table, ObjId id,
                           MechKind kind);
    void on_event(const Event& e);
    [[gnu::noinline]] void on_sync(const Event& e, Gid g); // every op but r and w
    // The subs of one (mechanism, thread, role) key: distinct variables and groups
    // (add_variable merges a variable's transitions of one key into one sub).
    std::span<const enforce_detail::Sub> find(std::uint32_t mech, Gid g, Role role) const {
        if (dense_keys.empty())
            return find_sparse(mech, g, role);
        const Range r = dense_keys[mech * key_stride + (static_cast<std::uint32_t>(g) << 1 |
                                                        enforce_detail::role_bit(role))];
        return {subs.data() + r.begin, subs.data() + r.end};
    }
    std::span<const enforce_detail::Sub> find_sparse(std::uint32_t mech, Gid g, Role role) const;
    void lookup(std::uint32_t mech, Gid g, Role role);
    void step(const enforce_detail::Sub& sub);
    void apply_gathered();

    // enforce_markings.cpp
    void sync_step(std::uint32_t var, std::span<const std::int32_t> trs);
    void group_step(std::uint32_t group, std::span<const enforce_detail::Rule> rules);
    // want: the rows that permit the access (Shape::permit_read / permit_write).
    void lazy_memory_step(std::uint32_t var, std::uint32_t group, Gid g, std::uint64_t want,
                          const Event& e);
    // The candidates of a lazy variable now, as one-place markings.
    void materialize(std::uint32_t var, enforce_detail::Candidates& out) const;
    void memory_step(std::uint32_t var, Gid g, const Event& e);
    void resync(std::uint32_t var, Gid g, bool write);

    // enforce_explain.cpp
    EnforceViolation describe(std::uint32_t var, Gid g, const Event& e) const;
    std::string mech_label(const enforce_detail::Var& v, int edge) const;
};

} // namespace sfg
