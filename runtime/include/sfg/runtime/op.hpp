// The ops of a trace and everything every reader, writer and analysis needs to know about each:
// one table (docs/traces.md "Operations"), so that no file keeps its own list.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sfg {

// Trace ops (docs/traces.md) plus the implicit start/end of a thread (thesis Figure 4.1), which a
// stream carries as synthetic events so that every consumer agrees on where they happen:
// - thread_start of u comes right before u's first event (or right before the first join of u,
//   when u has no event of its own but was forked);
// - thread_end of u comes right before the first event that joins u.
// Synthetic events have `implicit == true` and take the number of the event they precede.
// The numeric values are internal: files carry `OpInfo::wire`, never these.
enum class Op : std::uint8_t {
    read,
    write,
    acquire,
    release,
    vol_read,
    vol_write,
    barrier_enter,
    barrier_exit,
    fork,
    join,
    begin,
    end,
    thread_start,
    thread_end,
    enqueue, // enq(q,o): o put into queue q (thesis §5.1, q(o))
    dequeue, // deq(q,o): o taken out of queue q
    // A condition variable's scheduling steps (docs/programs.md, "Condition variables"): never
    // in a trace (its wait is rel(m) and acq(m) there), only in the model checker's steps.
    cond_wait,      // waits on c (after rel(m))
    cond_wake,      // woken on c (before acq(m))
    cond_notify,    // notify c: wakes one waiter, if any
    cond_notifyall, // notifyall c: wakes every waiter
};
inline constexpr std::size_t op_count = 20;

// A synchronization mechanism's kind in SyncMech (thesis §4.1.1); `queue` is the hand-off q(o)
// of thesis §5.1 (docs/language.md, "Queues").
enum class MechKind : std::uint8_t { lock, volatile_, barrier, fork, join, queue };

// The namespaces of names (docs/traces.md): each kind of object has its own. namespace_count
// counts those every trace form lists its names by (an SLP's name tables); the queues of
// enq/deq (thesis §5.1) come after them, in the forms that have them.
// Condition variables (`cond`) come last: no trace names them.
enum class Namespace : std::uint8_t {
    thread,
    variable,
    lock,
    volatile_,
    barrier,
    location,
    queue,
    cond
};
inline constexpr std::size_t namespace_count = 6;
inline constexpr std::size_t namespace_count_with_queues = namespace_count + 1;
// Every namespace, the model checker's condition variables too.
inline constexpr std::size_t namespace_count_all = namespace_count_with_queues + 1;

// What an op's operand is.
enum class Operand : std::uint8_t {
    none,       // begin, end
    name,       // one name of OpInfo::space: r(x), acq(m), vr(v), benter(b)
    thread_set, // fork(u1,u2), join(u1,u2): distinct thread names
    thread,     // start/exit (implicit): the forker / the joiner, if any
    queue_item, // enq(q,o), deq(q,o): a queue and a variable (Symbols::queue_items)
};

// An op's part in synchronization (thesis Figure 4.2): an access to a shared variable, the
// snd or rcv of a mechanism, the boundary of a deterministic block, or a condition variable's
// scheduling step (which synchronizes nothing itself; the model checker's only).
enum class Role : std::uint8_t { memory, snd, rcv, block, schedule };

// How an op meets the other ops on an object its operand names (each thread of a set), for the
// dependence relation of the model checker (docs/programs.md, "Dependence"): two ops on one
// object are independent when both are `shared` and in one `OpInfo::phase` (two reads, two
// arrivals at a barrier, two departures from it, two joins of a thread); otherwise dependent.
// `none`: the op names no object (begin, end, and the implicit start/exit, which the model
// checker's steps do not carry).
enum class Access : std::uint8_t { none, shared, exclusive };

struct OpInfo {
    Op op;
    std::string_view spelling; // in text traces and reports; implicit ops only in reports
    Operand operand;
    Namespace space; // of the operand's names (threads for sets and threads)
    Role role;
    std::optional<MechKind> mech; // of a snd or rcv; none for accesses and block boundaries
    bool writes;                  // changes its object: w (a variable), vw (a volatile)
    Access access;                // on its operand's objects, for dependence
    std::uint8_t phase;           // of a shared access: arrivals (0) and departures (1) differ
    bool implicit;                // never read from or written to a file: made by streams
                                  // (start, exit), or the model checker's (Role::schedule)
    std::uint8_t wire; // binary trace code (docs/traces.md; 12 and 13 are unassigned); no_wire for
                       // implicit ops
    std::string_view prose; // in findings' sentences (describe()): "read", "write", ...
};
inline constexpr std::uint8_t no_wire = 0xff;

// Indexed by Op.
inline constexpr std::array<OpInfo, op_count> op_table{{
    // clang-format off
    // op                 spelling   operand               space                 role          mech                 writes access             phase implicit wire     prose
    {Op::read,          "r",      Operand::name,       Namespace::variable,  Role::memory, std::nullopt,        false, Access::shared,    0,    false, 0,       "read"},
    {Op::write,         "w",      Operand::name,       Namespace::variable,  Role::memory, std::nullopt,        true,  Access::exclusive, 0,    false, 1,       "write"},
    {Op::acquire,       "acq",    Operand::name,       Namespace::lock,      Role::rcv,    MechKind::lock,      false, Access::exclusive, 0,    false, 2,       "acq"},
    {Op::release,       "rel",    Operand::name,       Namespace::lock,      Role::snd,    MechKind::lock,      false, Access::exclusive, 0,    false, 3,       "rel"},
    {Op::vol_read,      "vr",     Operand::name,       Namespace::volatile_, Role::rcv,    MechKind::volatile_, false, Access::shared,    0,    false, 4,       "vr"},
    {Op::vol_write,     "vw",     Operand::name,       Namespace::volatile_, Role::snd,    MechKind::volatile_, true,  Access::exclusive, 0,    false, 5,       "vw"},
    {Op::barrier_enter, "benter", Operand::name,       Namespace::barrier,   Role::snd,    MechKind::barrier,   false, Access::shared,    0,    false, 6,       "benter"},
    {Op::barrier_exit,  "bexit",  Operand::name,       Namespace::barrier,   Role::rcv,    MechKind::barrier,   false, Access::shared,    1,    false, 7,       "bexit"},
    {Op::fork,          "fork",   Operand::thread_set, Namespace::thread,    Role::snd,    MechKind::fork,      false, Access::exclusive, 0,    false, 8,       "fork"},
    {Op::join,          "join",   Operand::thread_set, Namespace::thread,    Role::rcv,    MechKind::join,      false, Access::shared,    0,    false, 9,       "join"},
    {Op::begin,         "begin",  Operand::none,       Namespace::thread,    Role::block,  std::nullopt,        false, Access::none,      0,    false, 10,      "begin"},
    {Op::end,           "end",    Operand::none,       Namespace::thread,    Role::block,  std::nullopt,        false, Access::none,      0,    false, 11,      "end"},
    {Op::thread_start,  "start",  Operand::thread,     Namespace::thread,    Role::rcv,    MechKind::fork,      false, Access::none,      0,    true,  no_wire, "start"},
    {Op::thread_end,    "exit",   Operand::thread,     Namespace::thread,    Role::snd,    MechKind::join,      false, Access::none,      0,    true,  no_wire, "exit"},
    {Op::enqueue,       "enq",    Operand::queue_item, Namespace::queue,     Role::snd,    MechKind::queue,     false, Access::exclusive, 0,    false, 14,      "enq"},
    {Op::dequeue,       "deq",    Operand::queue_item, Namespace::queue,     Role::rcv,    MechKind::queue,     false, Access::exclusive, 0,    false, 15,      "deq"},
    {Op::cond_wait,     "wait",   Operand::name,       Namespace::cond,      Role::schedule, std::nullopt,      false, Access::exclusive, 0,    true,  no_wire, "wait"},
    {Op::cond_wake,     "wake",   Operand::name,       Namespace::cond,      Role::schedule, std::nullopt,      false, Access::exclusive, 0,    true,  no_wire, "wake"},
    {Op::cond_notify,   "notify", Operand::name,       Namespace::cond,      Role::schedule, std::nullopt,      false, Access::exclusive, 0,    true,  no_wire, "notify"},
    {Op::cond_notifyall, "notifyall", Operand::name,   Namespace::cond,      Role::schedule, std::nullopt,      false, Access::exclusive, 0,    true,  no_wire, "notifyall"},
    // clang-format on
}};

constexpr const OpInfo& op_info(Op op) {
    return op_table[static_cast<std::size_t>(op)];
}

constexpr std::string_view spelling(Op op) {
    return op_info(op).spelling;
}
const char* to_string(Op op); // spelling(op), NUL-terminated

// Whether an op changes its object (OpInfo::writes), as one bit test for the analyses' inner
// loops.
static_assert(op_count <= 32);
inline constexpr std::uint32_t writes_mask = [] {
    std::uint32_t m = 0;
    for (const OpInfo& i : op_table)
        if (i.writes)
            m |= 1u << static_cast<unsigned>(i.op);
    return m;
}();
constexpr bool writes(Op op) {
    return (writes_mask >> static_cast<unsigned>(op)) & 1u;
}

// Whether two ops on one object are dependent (Access, docs/programs.md "Dependence").
constexpr bool conflicting(const OpInfo& x, const OpInfo& y) {
    return x.access == Access::exclusive || y.access == Access::exclusive || x.phase != y.phase;
}

constexpr bool is_memory(Op op) {
    return op_info(op).role == Role::memory;
}
// A snd or rcv of a mechanism (Figure 4.2), explicit or implicit.
constexpr bool is_sync(Op op) {
    return op_info(op).role == Role::snd || op_info(op).role == Role::rcv;
}
// vr or vw: an access to a volatile, which carries the value read or written (docs/traces.md,
// vr(v=K)).
constexpr bool is_volatile_access(Op op) {
    return op_info(op).space == Namespace::volatile_;
}
// An op with one named operand (r .. bexit).
constexpr bool has_name_operand(Op op) {
    return op_info(op).operand == Operand::name;
}

// The op a text trace spells `s` (implicit ops are never read).
constexpr std::optional<Op> op_from_spelling(std::string_view s) {
    for (const OpInfo& i : op_table)
        if (!i.implicit && i.spelling == s)
            return i.op;
    return std::nullopt;
}

// The op of a binary trace's wire code.
constexpr std::optional<Op> op_from_wire(unsigned code) {
    for (const OpInfo& i : op_table)
        if (!i.implicit && i.wire == code)
            return i.op;
    return std::nullopt;
}

// The op that is the snd / rcv of a mechanism kind (thesis Figure 4.2): rel/acq, vw/vr,
// benter/bexit, fork/start, exit/join, enq/deq (thesis §5.1, q(o)).
constexpr Op snd_op(MechKind k) {
    for (const OpInfo& i : op_table)
        if (i.role == Role::snd && i.mech == k)
            return i.op;
    return Op::begin; // not reached: every kind has one
}
constexpr Op rcv_op(MechKind k) {
    for (const OpInfo& i : op_table)
        if (i.role == Role::rcv && i.mech == k)
            return i.op;
    return Op::begin; // not reached: every kind has one
}

// The binary trace's name-record code of each namespace (docs/traces.md): tag 0x40 + code.
inline constexpr std::array<std::uint8_t, namespace_count_with_queues> namespace_wire{0, 1, 2, 3,
                                                                                      4, 5, 6};
const char* to_string(Namespace n); // "thread", "variable", "lock", "volatile", "barrier", ...

namespace op_checks {
constexpr bool table_is_indexed_by_op() {
    for (std::size_t i = 0; i < op_count; ++i)
        if (static_cast<std::size_t>(op_table[i].op) != i)
            return false;
    return true;
}
constexpr bool wire_codes_are_distinct() {
    for (std::size_t i = 0; i < op_count; ++i)
        for (std::size_t j = i + 1; j < op_count; ++j)
            if (op_table[i].wire != no_wire && op_table[i].wire == op_table[j].wire)
                return false;
    return true;
}
constexpr bool phases_are_of_shared_ops() { // at most two, the second only for shared ops
    for (const OpInfo& i : op_table)
        if (i.phase > 1 || (i.phase == 1 && i.access != Access::shared))
            return false;
    return true;
}
static_assert(table_is_indexed_by_op());
static_assert(phases_are_of_shared_ops());
static_assert(wire_codes_are_distinct());
static_assert(op_from_spelling("benter") == Op::barrier_enter && !op_from_spelling("start"));
static_assert(snd_op(MechKind::lock) == Op::release &&
              rcv_op(MechKind::barrier) == Op::barrier_exit);
static_assert(rcv_op(MechKind::fork) == Op::thread_start &&
              snd_op(MechKind::join) == Op::thread_end);
static_assert(snd_op(MechKind::queue) == Op::enqueue && rcv_op(MechKind::queue) == Op::dequeue);
} // namespace op_checks

} // namespace sfg
