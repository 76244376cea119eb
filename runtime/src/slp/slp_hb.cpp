// HB on the grammar (slp_hb.hpp). The summary of a chunk D is the paper's
// (§3.1): AF_D(u) and BL_D(u) for every u of U (threads, then locks, volatiles,
// barriers and queue items (q, o)), and per (variable, thread) the After of the
// last read (ALRd) and the Before of the first read (BFRd), and the same for
// writes, kept per thread here (the paper keeps writes per variable: the last
// write overall is the one with the largest position). Each entry also has its
// position in the chunk, which the report needs, and each summary its racy
// variables (the SLP paper's Race?, per variable).
//
// Every rule is cut into a balanced binary tree of nodes, so that composition
// is the paper's binary one (A -> B C, App. D) and the total cost is that of
// the grammar times the log of the longest rule, however long Sequitur's start
// rule is; the descents of the report follow one path of this tree.
#include "sfg/runtime/slp/slp_hb.hpp"

#include "slp_barrier_slots.hpp"
#include "slp_tree.hpp"

#include <algorithm>
#include <bit>
#include <initializer_list>
#include <optional>
#include <string>

namespace sfg {

// The engine behind SlpHb, for one representation of the sets of U.
struct SlpHb::Impl {
    virtual ~Impl() = default;
    virtual const std::vector<ObjId>& racy_vars() const = 0;
    virtual std::vector<Race> races() const = 0;
    virtual SlpHb::Dump dump(std::uint32_t rule) const = 0;
};

namespace {

// A subset of U: a bitset, its first word inline (no allocation while U has at
// most 64 elements: threads, locks, volatiles, barriers and queue items together).
class USet {
public:
    USet() = default;
    USet(std::initializer_list<std::uint32_t> us) {
        for (std::uint32_t u : us)
            add(u);
    }
    bool empty() const {
        if (w0_)
            return false;
        for (std::uint64_t w : rest_)
            if (w)
                return false;
        return true;
    }
    void add(std::uint32_t u) {
        if (u < 64) {
            w0_ |= std::uint64_t{1} << u;
            return;
        }
        const std::size_t i = u / 64 - 1;
        if (rest_.size() <= i)
            rest_.resize(i + 1, 0);
        rest_[i] |= std::uint64_t{1} << (u % 64);
    }
    bool has(std::uint32_t u) const {
        if (u < 64)
            return (w0_ >> u) & 1;
        const std::size_t i = u / 64 - 1;
        return i < rest_.size() && ((rest_[i] >> (u % 64)) & 1);
    }
    void unite(const USet& o) {
        w0_ |= o.w0_;
        if (rest_.size() < o.rest_.size())
            rest_.resize(o.rest_.size(), 0);
        for (std::size_t i = 0; i < o.rest_.size(); ++i)
            rest_[i] |= o.rest_[i];
    }
    void remove_all(const USet& o) {
        w0_ &= ~o.w0_;
        for (std::size_t i = 0; i < rest_.size() && i < o.rest_.size(); ++i)
            rest_[i] &= ~o.rest_[i];
    }
    bool disjoint(const USet& o) const {
        if (w0_ & o.w0_)
            return false;
        for (std::size_t i = 0; i < rest_.size() && i < o.rest_.size(); ++i)
            if (rest_[i] & o.rest_[i])
                return false;
        return true;
    }
    template <class F>
    void each(F f) const {
        auto bits = [&](std::uint64_t w, std::uint32_t base) {
            while (w) {
                f(base + static_cast<std::uint32_t>(std::countr_zero(w)));
                w &= w - 1;
            }
        };
        bits(w0_, 0);
        for (std::size_t i = 0; i < rest_.size(); ++i)
            bits(rest_[i], static_cast<std::uint32_t>(64 * (i + 1)));
    }

private:
    std::uint64_t w0_ = 0;
    std::vector<std::uint64_t> rest_; // words 1, 2, ...
};
// A subset of U of at most 64 elements: one word.
class WordSet {
public:
    WordSet() = default;
    WordSet(std::initializer_list<std::uint32_t> us) {
        for (std::uint32_t u : us)
            add(u);
    }
    bool empty() const { return w_ == 0; }
    void add(std::uint32_t u) { w_ |= std::uint64_t{1} << u; }
    bool has(std::uint32_t u) const { return u < 64 && ((w_ >> u) & 1); }
    void unite(const WordSet& o) { w_ |= o.w_; }
    void remove_all(const WordSet& o) { w_ &= ~o.w_; }
    bool disjoint(const WordSet& o) const { return (w_ & o.w_) == 0; }
    template <class F>
    void each(F f) const {
        for (std::uint64_t w = w_; w; w &= w - 1)
            f(static_cast<std::uint32_t>(std::countr_zero(w)));
    }

private:
    std::uint64_t w_ = 0;
};

using Key = std::uint64_t; // variable << 32 | thread
constexpr Key key_of(ObjId x, ThreadId t) {
    return (Key{x} << 32) | t;
}
constexpr ObjId var_of(Key k) {
    return static_cast<ObjId>(k >> 32);
}
constexpr ThreadId thread_of(Key k) {
    return static_cast<ThreadId>(k);
}
constexpr std::uint64_t none = ~std::uint64_t{0};

template <class M, class K>
auto find_in(const M& m, K k) -> decltype(&m.front().second) {
    auto it =
        std::lower_bound(m.begin(), m.end(), k, [](const auto& e, K v) { return e.first < v; });
    return it != m.end() && it->first == k ? &it->second : nullptr;
}

// The number of distinct keys of two maps sorted by key: summaries are kept for every node, so
// their vectors are sized exactly.
template <class M>
std::size_t union_size(const M& a, const M& b) {
    std::size_t n = 0;
    auto i = a.begin(), j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (i->first < j->first)
            ++i;
        else if (j->first < i->first)
            ++j;
        else
            ++i, ++j;
        ++n;
    }
    return n + static_cast<std::size_t>(a.end() - i) + static_cast<std::size_t>(b.end() - j);
}

// The summaries of chunks and their composition (the paper's §3.1, Eq. 2-8 and App. D), for
// one representation of the sets of U.
template <class USet>
struct Summaries {
    struct Access {
        USet set;              // After (last) or Before (first) of the access, within the chunk
        std::uint64_t pos = 0; // 0-based position in the chunk
    };
    using SetMap = std::vector<std::pair<std::uint32_t, USet>>;
    using AccessMap = std::vector<std::pair<Key, Access>>;

    struct Summary {
        std::uint64_t len = 0;
        SetMap af, bl;
        // Objects whose knowledge the chunk forgets (a barrier slot at a generation's first
        // arrival, slp_barrier_slots.hpp). For u in kill, af[u] / bl[u] are exact (u's own
        // knowledge does not survive); for other u they leave u itself implicit.
        USet kill;
        AccessMap first_rd, last_rd, first_wr, last_wr;
        std::vector<std::pair<ThreadId, std::uint64_t>> last_snd; // for the epochs of `hb`
        std::vector<ObjId> racy;
    };

    static bool contains(const USet& s, std::uint32_t u) { return s.has(u); }

    static bool disjoint(const USet& a, const USet& b) { return a.disjoint(b); }

    // (S \ kill) ∪ ⋃_{v∈S} m(v): pushing an After through a later chunk (m = its AF,
    // Lemma 3.5) or a Before through an earlier one (m = its BL, Lemma 3.6).
    static USet push(const USet& s, const SetMap& m, const USet& kill) {
        USet out = s;
        out.remove_all(kill);
        for (const auto& [u, set] : m)
            if (s.has(u))
                out.unite(set);
        return out;
    }

    // AF_A / BL_A (Eq. 2, 5): near(u) ∪ far(u) ∪ ⋃_{v ∈ near(u)} far-side(v),
    // where for AF near is B's and the far side C's, for BL the reverse; far(u) only when the
    // near side keeps u's own knowledge (u not in near_kill).
    static SetMap compose_sets(const SetMap& near, const USet& near_kill, const SetMap& far,
                               const USet& far_kill) {
        SetMap out;
        out.reserve(union_size(near, far));
        auto i = near.begin(), j = far.begin();
        while (i != near.end() || j != far.end()) {
            if (j == far.end() || (i != near.end() && i->first < j->first)) {
                out.emplace_back(i->first, push(i->second, far, far_kill));
                ++i;
            } else if (i == near.end() || j->first < i->first) {
                if (!near_kill.has(j->first))
                    out.push_back(*j);
                ++j;
            } else {
                USet s = push(i->second, far, far_kill);
                if (!near_kill.has(i->first))
                    s.unite(j->second);
                out.emplace_back(i->first, std::move(s));
                ++i, ++j;
            }
        }
        return out;
    }

    // Last accesses: C's when C has the key, else B's pushed through C (Eq. 3/4).
    static AccessMap compose_last(const AccessMap& b, const AccessMap& c, const SetMap& c_af,
                                  const USet& c_kill, std::uint64_t off) {
        AccessMap out;
        out.reserve(union_size(b, c));
        auto i = b.begin(), j = c.begin();
        while (i != b.end() || j != c.end()) {
            if (j == c.end() || (i != b.end() && i->first < j->first)) {
                out.emplace_back(i->first,
                                 Access{push(i->second.set, c_af, c_kill), i->second.pos});
                ++i;
            } else {
                out.emplace_back(j->first, Access{j->second.set, j->second.pos + off});
                if (i != b.end() && i->first == j->first)
                    ++i;
                ++j;
            }
        }
        return out;
    }

    // First accesses: B's when B has the key, else C's pushed through B (Eq.
    // 7/8).
    static AccessMap compose_first(const AccessMap& b, const AccessMap& c, const SetMap& b_bl,
                                   const USet& b_kill, std::uint64_t off) {
        AccessMap out;
        out.reserve(union_size(b, c));
        auto i = b.begin(), j = c.begin();
        while (i != b.end() || j != c.end()) {
            if (i == b.end() || (j != c.end() && j->first < i->first)) {
                out.emplace_back(j->first,
                                 Access{push(j->second.set, b_bl, b_kill), j->second.pos + off});
                ++j;
            } else {
                out.push_back(*i);
                if (j != c.end() && j->first == i->first)
                    ++j;
                ++i;
            }
        }
        return out;
    }

    // The entries of variable x in a map sorted by key.
    static std::pair<typename AccessMap::const_iterator, typename AccessMap::const_iterator>
    range_of(const AccessMap& m, ObjId x) {
        auto lo = std::lower_bound(m.begin(), m.end(), key_of(x, 0),
                                   [](const auto& e, Key k) { return e.first < k; });
        auto hi = lo;
        while (hi != m.end() && var_of(hi->first) == x)
            ++hi;
        return {lo, hi};
    }

    // The last (largest position) or first (smallest) access among a variable's
    // entries.
    static const Access* extreme(typename AccessMap::const_iterator lo,
                                 typename AccessMap::const_iterator hi, bool last) {
        const Access* best = nullptr;
        for (auto it = lo; it != hi; ++it)
            if (!best || (last ? it->second.pos > best->pos : it->second.pos < best->pos))
                best = &it->second;
        return best;
    }

    // The first event of chunk C (offset within C) that races with an access of x
    // in chunk B, when neither has a race on x before it (Lemma 3.2: B's last
    // write and last reads per thread against C's first write and first reads per
    // thread; a later access of the same kind is ordered after the first one, so
    // it races with B only if the first does). `none` when there is none.
    static std::uint64_t first_cross(const AccessMap& b_last_rd, const AccessMap& b_last_wr,
                                     const AccessMap& c_first_rd, const AccessMap& c_first_wr,
                                     ObjId x) {
        auto [lw0, lw1] = range_of(b_last_wr, x);
        auto [lr0, lr1] = range_of(b_last_rd, x);
        auto [fw0, fw1] = range_of(c_first_wr, x);
        auto [fr0, fr1] = range_of(c_first_rd, x);
        const Access* last_w = extreme(lw0, lw1, true);
        const Access* first_w = extreme(fw0, fw1, false);
        std::uint64_t best = none;
        if (first_w) {
            bool race = last_w && disjoint(last_w->set, first_w->set);
            for (auto it = lr0; !race && it != lr1; ++it)
                race = disjoint(it->second.set, first_w->set);
            if (race)
                best = first_w->pos;
        }
        if (last_w)
            for (auto it = fr0; it != fr1; ++it)
                if (it->second.pos < best && disjoint(last_w->set, it->second.set))
                    best = it->second.pos;
        return best;
    }

    static Summary compose(const Summary& b, const Summary& c) {
        Summary a;
        const std::uint64_t off = b.len;
        a.len = b.len + c.len;
        a.af = compose_sets(b.af, b.kill, c.af, c.kill);
        a.bl = compose_sets(c.bl, c.kill, b.bl, b.kill);
        a.kill = b.kill;
        a.kill.unite(c.kill);
        a.last_rd = compose_last(b.last_rd, c.last_rd, c.af, c.kill, off);
        a.last_wr = compose_last(b.last_wr, c.last_wr, c.af, c.kill, off);
        a.first_rd = compose_first(b.first_rd, c.first_rd, b.bl, b.kill, off);
        a.first_wr = compose_first(b.first_wr, c.first_wr, b.bl, b.kill, off);
        a.last_snd = b.last_snd;
        for (const auto& [t, pos] : c.last_snd) {
            auto it = std::lower_bound(a.last_snd.begin(), a.last_snd.end(), t,
                                       [](const auto& e, ThreadId v) { return e.first < v; });
            if (it != a.last_snd.end() && it->first == t)
                it->second = pos + off;
            else
                a.last_snd.insert(it, {t, pos + off});
        }
        // Race?(A) per variable: B's, C's, and the cross races of the variables
        // both access.
        std::set_union(b.racy.begin(), b.racy.end(), c.racy.begin(), c.racy.end(),
                       std::back_inserter(a.racy));
        std::vector<ObjId> cross;
        ObjId prev = no_object;
        auto visit = [&](const AccessMap& m) {
            for (const auto& e : m) {
                const ObjId x = var_of(e.first);
                if (x == prev)
                    continue;
                prev = x;
                if (std::binary_search(a.racy.begin(), a.racy.end(), x))
                    continue;
                if (first_cross(b.last_rd, b.last_wr, c.first_rd, c.first_wr, x) != none)
                    cross.push_back(x);
            }
        };
        visit(c.first_wr);
        prev = no_object;
        visit(c.first_rd);
        if (!cross.empty()) {
            std::sort(cross.begin(), cross.end());
            cross.erase(std::unique(cross.begin(), cross.end()), cross.end());
            std::vector<ObjId> r;
            std::set_union(a.racy.begin(), a.racy.end(), cross.begin(), cross.end(),
                           std::back_inserter(r));
            a.racy.swap(r);
        }
        return a;
    }
};

// The elements of U and their ids: threads, then locks, volatiles, each barrier's slots (one a
// barrier when its events are not labelled with slots, slp_barrier_slots.hpp), then queue items
// (q, o) (Symbols::queue_items).
class Universe {
public:
    Universe(const Symbols& syms, const std::optional<slp_detail::BarrierSlots>& labels)
        : syms_(syms), labelled_(labels.has_value()) {
        std::uint32_t next = syms.threads.size();
        for (Namespace n : {Namespace::lock, Namespace::volatile_}) {
            base_[static_cast<std::size_t>(n)] = next;
            next += syms.names(n).size();
        }
        base_[static_cast<std::size_t>(Namespace::barrier)] = next;
        for (ObjId b = 0; b < syms.barriers.size(); ++b) {
            slot_base_.push_back(next);
            next += labels ? labels->slots[b] : 1;
        }
        base_[static_cast<std::size_t>(Namespace::queue)] = next;
        size_ = next + syms.queue_items.size();
    }

    std::size_t size() const { return size_; }

    // The element of U an event's operand is: of a barrier, the slot of its generation.
    std::uint32_t object(const SlpTerminal& e, std::uint32_t slot) const {
        const OpInfo& op = op_info(e.op);
        return op.space == Namespace::barrier ? slot_base_[e.target] + slot
                                              : base(op.space) + e.target;
    }

    // For dumps: a thread's, lock's or volatile's name; b#k for slot k of a labelled barrier b;
    // q(o) for a queue item.
    std::string name(std::uint32_t u) const {
        if (u < syms_.threads.size())
            return syms_.threads.name(u);
        if (const std::uint32_t q = base(Namespace::queue); u >= q) {
            const QueueItems& items = syms_.queue_items;
            return syms_.queues.name(items.queue(u - q)) + "(" + syms_.vars.name(items.var(u - q)) +
                   ")";
        }
        for (ObjId b = static_cast<ObjId>(slot_base_.size()); b-- > 0;)
            if (u >= slot_base_[b])
                return syms_.barriers.name(b) +
                       (labelled_ ? "#" + std::to_string(u - slot_base_[b]) : "");
        for (Namespace n : {Namespace::volatile_, Namespace::lock})
            if (u >= base(n))
                return syms_.names(n).name(u - base(n));
        return "?";
    }

private:
    std::uint32_t base(Namespace n) const { return base_[static_cast<std::size_t>(n)]; }

    const Symbols& syms_;
    bool labelled_;
    // U id of object 0 of each namespace; of queue item 0 under Namespace::queue.
    std::uint32_t base_[namespace_count_with_queues] = {};
    std::vector<std::uint32_t> slot_base_; // by barrier: U id of its slot 0
    std::size_t size_ = 0;
};

// The summaries of a grammar's rules as balanced binary trees of nodes (leaves: terminals and
// labelled barrier events), and the walks down them that find positions.
template <class USet>
struct SummaryTree : Summaries<USet> {
    using Base = Summaries<USet>;
    using Base::compose;
    using Base::first_cross;
    using typename Base::Access;
    using typename Base::AccessMap;
    using typename Base::SetMap;
    using typename Base::Summary;

    const Slp& slp;
    const Symbols& syms;
    // Barrier events labelled with their generations' slots, when the trace has any.
    std::optional<slp_detail::BarrierSlots> labels;
    Universe universe;
    // Nodes: one per terminal (leaves), one per labelled barrier event, then the binary
    // nodes of the rules' (or chunks') trees.
    struct Node {
        std::uint32_t left = ~0u, right = ~0u; // leaves: ~0u
        Summary sum;
    };
    std::vector<Node> nodes;
    std::vector<std::uint32_t> rule_node;

    SummaryTree(const Slp& s, const Symbols& y, std::optional<slp_detail::BarrierSlots> l)
        : slp(s), syms(y), labels(std::move(l)), universe(y, labels) {
        nodes.reserve(slp.terminals.size() + slp.size());
        for (const SlpTerminal& t : slp.terminals)
            nodes.push_back({~0u, ~0u, leaf(t, 0, false)});
        rule_node.assign(slp.rules.size(), 0);
        if (labels) {
            for (const slp_detail::BarrierSlots::Leaf& b : labels->leaves)
                nodes.push_back({~0u, ~0u, leaf(slp.terminals[b.terminal], b.slot, b.kill)});
            std::vector<std::uint32_t> chunk_node;
            for (const slp_detail::BarrierSlots::Chunk& c : labels->chunks)
                chunk_node.push_back(tree(c.symbols, chunk_node));
            const auto unused = static_cast<std::uint32_t>(nodes.size());
            nodes.push_back({});
            for (std::size_t r = 0; r < slp.rules.size(); ++r)
                rule_node[r] = labels->rule_chunk[r] == slp_detail::BarrierSlots::none_chunk
                                   ? unused
                                   : chunk_node[labels->rule_chunk[r]];
            return;
        }
        for (std::size_t r = slp.rules.size(); r-- > 0;)
            rule_node[r] = tree(slp.rules[r], rule_node);
    }

    // The node of a right-hand side whose rule symbols are nodes[of[...]]: a balanced tree,
    // pairs level by level (associativity of the summaries).
    std::uint32_t tree(const std::vector<SlpSymbol>& symbols,
                       const std::vector<std::uint32_t>& of) {
        if (symbols.empty()) { // the empty trace
            nodes.push_back({});
            return static_cast<std::uint32_t>(nodes.size() - 1);
        }
        std::vector<std::uint32_t> level;
        level.reserve(symbols.size());
        return balanced_tree(symbols, of, level,
                             [this](std::uint32_t l, std::uint32_t r) { return make(l, r); });
    }

    // The terminal a leaf node stands for.
    const SlpTerminal& terminal_of(std::uint32_t leaf_node) const {
        if (leaf_node < slp.terminals.size())
            return slp.terminals[leaf_node];
        return slp.terminals[labels->leaves[leaf_node - slp.terminals.size()].terminal];
    }

    std::uint32_t make(std::uint32_t l, std::uint32_t r) {
        Summary s = compose(nodes[l].sum, nodes[r].sum);
        nodes.push_back({l, r, std::move(s)});
        return static_cast<std::uint32_t>(nodes.size() - 1);
    }

    // The base case (App. D.1), for every op: a snd on o is ordered before
    // later rcvs on o. A barrier's o is the slot of the event's generation; kill: the
    // generation's first arrival, which first makes the slot forget the generation before.
    // A queue item (q, o) is an o of its own, as a volatile (thesis §5.1: every enq(q,o)
    // before every later deq(q,o)).
    Summary leaf(const SlpTerminal& e, std::uint32_t slot, bool kill) const {
        Summary s;
        s.len = 1;
        const ThreadId t = e.thread;
        const OpInfo& op = op_info(e.op);
        USet af_t{t}, bl_t{t};
        auto add = [](SetMap& m, std::uint32_t u, USet v) {
            auto it = std::lower_bound(m.begin(), m.end(), u,
                                       [](const auto& p, std::uint32_t k) { return p.first < k; });
            m.insert(it, {u, std::move(v)});
        };
        if (op.role == Role::memory) {
            AccessMap& f = writes(e.op) ? s.first_wr : s.first_rd;
            AccessMap& l = writes(e.op) ? s.last_wr : s.last_rd;
            f.emplace_back(key_of(e.target, t), Access{{t}, 0});
            l.emplace_back(key_of(e.target, t), Access{{t}, 0});
        } else if (has_object(op) && op.role == Role::snd) {
            const std::uint32_t o = universe.object(e, slot);
            if (kill)
                s.kill.add(o);
            af_t.add(o);
            add(s.bl, o, {t});
        } else if (has_object(op) && op.role == Role::rcv) {
            const std::uint32_t o = universe.object(e, slot);
            bl_t.add(o);
            add(s.af, o, {t});
        } else if (e.op == Op::fork) {
            for (ThreadId u : syms.thread_sets[e.target]) {
                af_t.add(u);
                add(s.bl, u, {t});
            }
        } else if (e.op == Op::join) {
            for (ThreadId u : syms.thread_sets[e.target]) {
                bl_t.add(u);
                add(s.af, u, {t});
            }
        }
        add(s.af, t, std::move(af_t));
        add(s.bl, t, std::move(bl_t));
        if (op.role == Role::snd && !op.implicit)
            s.last_snd.emplace_back(t, 0);
        return s;
    }

    static bool has_object(const OpInfo& op) {
        return op.operand == Operand::name || op.operand == Operand::queue_item;
    }
    bool is_leaf(std::uint32_t n) const { return nodes[n].left == ~0u; }
    std::uint32_t root() const { return rule_node.empty() ? 0 : rule_node[0]; }

    // The first racy event of x in the chunk of node n (x racy there): the
    // first of the cross candidates met on the way down (first_cross) and,
    // where the right part has a race of its own, the first one inside it.
    std::uint64_t first_race(std::uint32_t n, ObjId x) const {
        std::uint64_t base = 0, best = none;
        while (!is_leaf(n)) {
            const Summary& l = nodes[nodes[n].left].sum;
            const Summary& r = nodes[nodes[n].right].sum;
            if (std::binary_search(l.racy.begin(), l.racy.end(), x)) {
                n = nodes[n].left;
                continue;
            }
            const std::uint64_t c = first_cross(l.last_rd, l.last_wr, r.first_rd, r.first_wr, x);
            if (c != none)
                best = std::min(best, base + l.len + c);
            if (!std::binary_search(r.racy.begin(), r.racy.end(), x))
                break;
            base += l.len;
            n = nodes[n].right;
        }
        return best;
    }

    // The leaf at position p.
    std::uint32_t leaf_at(std::uint64_t p) const {
        std::uint32_t n = root();
        while (!is_leaf(n)) {
            const std::uint64_t ll = nodes[nodes[n].left].sum.len;
            if (p < ll) {
                n = nodes[n].left;
            } else {
                p -= ll;
                n = nodes[n].right;
            }
        }
        return n;
    }

    // The whole nodes that make up positions [0, hi) (in order), or [lo, end)
    // (in order).
    std::vector<std::pair<std::uint32_t, std::uint64_t>> cover_before(std::uint64_t hi) const {
        std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
        std::uint32_t n = root();
        std::uint64_t base = 0;
        while (hi > base) {
            if (hi >= base + nodes[n].sum.len) {
                out.emplace_back(n, base);
                break;
            }
            const std::uint64_t ll = nodes[nodes[n].left].sum.len;
            if (hi <= base + ll) {
                n = nodes[n].left;
            } else {
                out.emplace_back(nodes[n].left, base);
                base += ll;
                n = nodes[n].right;
            }
        }
        return out;
    }
    std::vector<std::pair<std::uint32_t, std::uint64_t>> cover_from(std::uint64_t lo) const {
        std::vector<std::pair<std::uint32_t, std::uint64_t>> rev;
        std::uint32_t n = root();
        std::uint64_t base = 0;
        while (base + nodes[n].sum.len > lo) {
            if (lo <= base) {
                rev.emplace_back(n, base);
                break;
            }
            const std::uint64_t ll = nodes[nodes[n].left].sum.len;
            if (lo >= base + ll) {
                base += ll;
                n = nodes[n].right;
            } else {
                rev.emplace_back(nodes[n].right, base + ll);
                n = nodes[n].left;
            }
        }
        std::reverse(rev.begin(), rev.end());
        return rev;
    }
};

// SlpHb's answers from the tree of summaries: the racy variables, the report's races (Lemma
// 3.1) and dumps of rules' summaries.
template <class USet>
struct Model final : SlpHb::Impl, SummaryTree<USet> {
    using Tree = SummaryTree<USet>;
    using Tree::contains;
    using Tree::cover_before;
    using Tree::cover_from;
    using Tree::extreme;
    using Tree::nodes;
    using Tree::push;
    using Tree::range_of;
    using Tree::root;
    using Tree::slp;
    using Tree::Tree;
    using typename Tree::Access;
    using typename Tree::AccessMap;
    using typename Tree::Summary;

    // With the report of docs/traces.md's `hb` (analysis_hb.cpp): at the first
    // racy event j of x, by thread t, among the threads u whose last write (then, for a
    // write, whose last read) of x before j does not happen before j, i.e. t is not in its
    // After within the prefix (Lemma 3.1), the latest of the accesses the vector-clock
    // detector keeps: u's first such access since u's last snd before that one (its epoch).
    AccessRef with_event(ObjId x, std::uint64_t p, ThreadId t, Op op) const {
        std::vector<std::pair<ThreadId, Access>> rd,
            wr; // last accesses of x before p
        for (const auto& nb : cover_before(p)) {
            // (Clang 14 cannot capture structured bindings in the lambda below.)
            const std::uint32_t n = nb.first;
            const std::uint64_t base = nb.second;
            const Summary& s = nodes[n].sum;
            auto apply = [&](std::vector<std::pair<ThreadId, Access>>& acc, const AccessMap& m) {
                for (auto& [u, a] : acc)
                    if (!find_in(m, key_of(x, u)))
                        a.set = push(a.set, s.af, s.kill);
                auto [lo, hi] = range_of(m, x);
                for (auto it = lo; it != hi; ++it) {
                    const ThreadId u = thread_of(it->first);
                    Access a{it->second.set, it->second.pos + base};
                    auto at =
                        std::lower_bound(acc.begin(), acc.end(), u,
                                         [](const auto& e, ThreadId v) { return e.first < v; });
                    if (at != acc.end() && at->first == u)
                        at->second = std::move(a);
                    else
                        acc.insert(at, {u, std::move(a)});
                }
            };
            apply(rd, s.last_rd);
            apply(wr, s.last_wr);
        }
        for (int kind = 0; kind < 2; ++kind) {
            if (kind == 1 && !writes(op))
                break;
            const auto& acc = kind == 0 ? wr : rd;
            std::uint64_t latest = none;
            ThreadId who = no_object;
            for (const auto& [u, a] : acc) {
                if (u == t || contains(a.set, t))
                    continue;
                // u's epoch: after its last snd before the access.
                std::uint64_t from = 0;
                const auto before = cover_before(a.pos);
                for (auto it = before.rbegin(); it != before.rend(); ++it)
                    if (auto s = find_in(nodes[it->first].sum.last_snd, u)) {
                        from = it->second + *s + 1;
                        break;
                    }
                std::uint64_t first = a.pos;
                for (const auto& [n, base] : cover_from(from)) {
                    const Summary& s = nodes[n].sum;
                    if (auto f = find_in(kind == 0 ? s.first_wr : s.first_rd, key_of(x, u))) {
                        first = base + f->pos;
                        break;
                    }
                }
                if (latest == none || first > latest) {
                    latest = first;
                    who = u;
                }
            }
            if (latest != none)
                return {latest + 1, who, kind == 0 ? Op::write : Op::read, 0,
                        slp.location_of(latest + 1)};
        }
        return {}; // unreachable for a racy event
    }
    const std::vector<ObjId>& racy_vars_() const { return nodes[root()].sum.racy; }
    const std::vector<ObjId>& racy_vars() const override { return racy_vars_(); }
    std::vector<Race> races() const override {
        std::vector<Race> out;
        const Model& m = *this;
        for (ObjId x : racy_vars_()) {
            const std::uint64_t p = m.first_race(m.root(), x);
            if (p == none)
                continue; // unreachable: a racy variable has a first racy event
            const SlpTerminal& e = m.terminal_of(m.leaf_at(p));
            Race r;
            r.var = x;
            r.access = {p + 1, e.thread, e.op, 0, m.slp.location_of(p + 1)};
            r.with = m.with_event(x, p, e.thread, e.op);
            out.push_back(r);
        }
        std::sort(out.begin(), out.end(),
                  [](const Race& a, const Race& b) { return a.access.event < b.access.event; });
        return out;
    }

    SlpHb::Dump dump(std::uint32_t rule) const override {
        const Model& m = *this;
        const Summary& s = m.nodes[m.rule_node[rule]].sum;
        auto u_name = [&](std::uint32_t u) { return m.universe.name(u); };
        auto names = [&](const USet& set) {
            std::vector<std::string> v;
            set.each([&](std::uint32_t u) { v.push_back(u_name(u)); });
            return v;
        };
        SlpHb::Dump d;
        for (const auto& [u, set] : s.af)
            if (!set.empty())
                d.af.emplace_back(u_name(u), names(set));
        for (const auto& [u, set] : s.bl)
            if (!set.empty())
                d.bl.emplace_back(u_name(u), names(set));
        auto per_thread = [&](const AccessMap& a, auto& out) {
            for (const auto& [k, acc] : a)
                out.emplace_back(m.syms.threads.name(thread_of(k)) + "," +
                                     m.syms.vars.name(var_of(k)),
                                 names(acc.set));
        };
        per_thread(s.last_rd, d.last_rd);
        per_thread(s.first_rd, d.first_rd);
        // Writes per variable, as the paper keeps them: the last and the first
        // write overall.
        auto per_var = [&](const AccessMap& a, bool last, auto& out) {
            for (std::size_t i = 0; i < a.size();) {
                const ObjId x = var_of(a[i].first);
                auto [lo, hi] = range_of(a, x);
                out.emplace_back(m.syms.vars.name(x), names(extreme(lo, hi, last)->set));
                i = static_cast<std::size_t>(hi - a.begin());
            }
        };
        per_var(s.last_wr, true, d.last_wr);
        per_var(s.first_wr, false, d.first_wr);
        for (ObjId x : s.racy)
            d.racy.push_back(m.syms.vars.name(x));
        return d;
    }
};

} // namespace

SlpHb::SlpHb(const Slp& slp, const Symbols& syms) {
    // Sets of U in one machine word when there are at most 64 threads and objects.
    std::optional<slp_detail::BarrierSlots> labels;
    if (slp_detail::has_barriers(slp))
        labels = slp_detail::label_barrier_slots(slp, syms);
    if (Universe(syms, labels).size() <= 64)
        impl_ = std::make_unique<Model<WordSet>>(slp, syms, std::move(labels));
    else
        impl_ = std::make_unique<Model<USet>>(slp, syms, std::move(labels));
}
SlpHb::~SlpHb() = default;

bool SlpHb::racy() const {
    return !racy_vars().empty();
}

const std::vector<ObjId>& SlpHb::racy_vars() const {
    return impl_->racy_vars();
}

std::vector<Race> SlpHb::races() const {
    return impl_->races();
}

SlpHb::Dump SlpHb::dump(std::uint32_t rule) const {
    return impl_->dump(rule);
}

} // namespace sfg
