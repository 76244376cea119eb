// Inferring disciplines from traces (docs/infer.md): one pass over each trace's events records
// per-variable runs of accesses and per-thread logs of sync operations (TraceRecorder); the
// Inferrer then summarises each variable's runs into phases of one access mode, joins them by
// the mechanism that orders one phase's last accesses before the next one's first, and folds
// repeated phases into loops. Nothing searches the trace.
#pragma once

#include "sfg/runtime/core/varint.hpp"
#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"
#include "sfg/runtime/report.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sfg::infer {

// Sets of locks held, interned to dense ids (0: the empty set), with their unions, differences
// and intersections remembered: a thread's held set changes by one lock at a time.
class LockSets {
public:
    LockSets();
    std::uint32_t with(std::uint32_t set, ObjId lock);
    std::uint32_t without(std::uint32_t set, ObjId lock);
    std::uint32_t meet(std::uint32_t a, std::uint32_t b);
    const std::vector<ObjId>& locks(std::uint32_t set) const { return sets_[set]; } // sorted

private:
    std::uint32_t intern(std::vector<ObjId> set);
    // op(set a, operand) remembered under (a, b): b is the lock or the set of the operand.
    std::uint32_t memo(std::unordered_map<std::uint64_t, std::uint32_t>& m, std::uint32_t a,
                       std::uint32_t b, const std::vector<ObjId>& operand,
                       std::vector<ObjId> (*op)(const std::vector<ObjId>&,
                                                const std::vector<ObjId>&));
    // The last answers of with/without by (set, lock), direct-mapped: a thread takes and drops
    // the same few locks, and each acq/rel asks.
    struct Recent {
        std::uint64_t key = ~std::uint64_t{0};
        std::uint32_t set = 0;
    };
    static constexpr std::size_t recent_size = 256;
    std::uint32_t
    recall(std::array<Recent, recent_size>& recent,
           std::unordered_map<std::uint64_t, std::uint32_t>& m, std::uint32_t set, ObjId lock,
           std::vector<ObjId> (*op)(const std::vector<ObjId>&, const std::vector<ObjId>&));
    std::vector<std::vector<ObjId>> sets_;
    std::map<std::vector<ObjId>, std::uint32_t> index_;
    std::unordered_map<std::uint64_t, std::uint32_t> with_, without_, meet_;
    std::array<Recent, recent_size> recent_with_, recent_without_;
};

// One run: consecutive accesses to a variable by one thread, with the locks held at every one.
struct Run {
    ThreadId thread = 0;
    std::uint64_t first = 0, last = 0; // event numbers
    std::uint64_t accesses = 0;
    bool writes = false;
    std::uint32_t locks = 0;  // LockSets id: held at each access of the run
    std::uint64_t rounds = 0; // the barrier departures of its thread before its last access
};

// A log of trivially copyable values appended in place (varint bytes, event numbers): malloc'd
// and grown by realloc, so that a large log grows by moving pages rather than copying them (and
// touching twice its size), and a few varints are written without a call a byte.
template <class T>
class PodLog {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    PodLog() = default;
    PodLog(PodLog&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
        o.data_ = nullptr, o.size_ = o.capacity_ = 0;
    }
    PodLog& operator=(PodLog&& o) noexcept {
        std::swap(data_, o.data_), std::swap(size_, o.size_), std::swap(capacity_, o.capacity_);
        return *this;
    }
    ~PodLog() { std::free(data_); }
    // Room for n more values at the end; write them there, then advance(by how many were).
    T* room(std::size_t n) {
        if (capacity_ - size_ < n) [[unlikely]]
            grow(n);
        return data_ + size_;
    }
    void advance(std::size_t n) { size_ += n; }
    void push_back(T v) {
        *room(1) = v;
        ++size_;
    }
    const T* data() const { return data_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    const T& operator[](std::size_t i) const { return data_[i]; }
    std::size_t size() const { return size_; }

private:
    [[gnu::noinline]] void grow(std::size_t n) { // capacity_ at least doubled, and size_ + n
        const std::size_t count = std::max({2 * capacity_, size_ + n, 64 / sizeof(T)});
        T* grown = static_cast<T*>(std::realloc(static_cast<void*>(data_), count * sizeof(T)));
        if (!grown)
            throw std::bad_alloc();
        data_ = grown;
        capacity_ = count;
    }
    T* data_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0;
};
using ByteLog = PodLog<unsigned char>;

// A variable's runs, LEB128-coded as they close (a few bytes a run; the last one stays open): a
// trace may switch threads on a variable at every access.
class RunLog {
public:
    // An access that continues the open run costs a few compares (most accesses); one of another
    // thread or round closes it.
    void access(ThreadId t, std::uint64_t number, bool write, std::uint32_t held,
                std::uint64_t rounds, LockSets& sets) {
        if (open_.accesses == 0 || open_.thread != t || open_.rounds != rounds) [[unlikely]]
            return start(t, number, write, held, rounds);
        if (open_.locks != held) [[unlikely]]
            open_.locks = sets.meet(open_.locks, held);
        open_.last = number;
        ++open_.accesses;
        open_.writes |= write;
    }
    template <class F>
    void each(F&& f) const; // in trace order
    bool empty() const { return open_.accesses == 0; }
    bool written() const { return written_ || open_.writes; } // some access writes

private:
    void start(ThreadId t, std::uint64_t number, bool write, std::uint32_t held,
               std::uint64_t rounds);
    ByteLog coded_;
    Run open_;                      // none yet while its accesses are 0
    std::uint64_t closed_last_ = 0; // `last` of the last closed run
    bool written_ = false;          // some closed run writes
};

// The varints of a log this library wrote (RunLog, EventLog), read in order: its own bytes, so
// never truncated nor out of range.
struct VarintReader {
    const unsigned char* p;
    std::size_t n, pos = 0;
    bool more() const { return pos < n; }
    std::uint64_t next() {
        std::uint64_t v = 0;
        get_varint(p, n, pos, v);
        return v;
    }
};

// A closed run: thread, first (from the previous run's last), last − first, accesses << 1 |
// writes, locks, rounds (RunLog::close).
template <class F>
void RunLog::each(F&& f) const {
    VarintReader in{coded_.data(), coded_.size()};
    auto next = [&] { return in.next(); };
    std::uint64_t last = 0;
    Run r;
    while (in.more()) {
        const unsigned char* b = in.p + in.pos;
        std::uint64_t aw = 0;
        // Most runs: six values below 128, a byte each.
        if (in.n - in.pos >= 6 && (b[0] | b[1] | b[2] | b[3] | b[4] | b[5]) < 0x80) [[likely]] {
            r.thread = b[0];
            r.first = last + b[1];
            r.last = r.first + b[2];
            aw = b[3];
            r.locks = b[4];
            r.rounds = b[5];
            in.pos += 6;
        } else {
            r.thread = static_cast<ThreadId>(next());
            r.first = last + next();
            r.last = r.first + next();
            aw = next();
            r.locks = static_cast<std::uint32_t>(next());
            r.rounds = next();
        }
        r.accesses = aw >> 1;
        r.writes = aw & 1;
        last = r.last;
        f(static_cast<const Run&>(r));
    }
    if (open_.accesses != 0)
        f(static_cast<const Run&>(open_));
}

// The events of one kind of sync op by one thread on one object, in trace order, with a tag for
// the kinds that have one (tagged()): the value id of vr/vw (or no_object), the generation of
// benter/bexit.
struct SyncLog {
    // Ascending event numbers in 4 bytes each: the low words, and where each high word begins (a
    // trace of fewer than 2^32 events has none).
    class Events {
    public:
        void push_back(std::uint64_t e) {
            while ((e >> 32) > highs_.size())
                [[unlikely]] highs_.push_back(low_.size());
            low_.push_back(static_cast<std::uint32_t>(e));
        }
        std::uint64_t operator[](std::size_t i) const {
            const auto high = static_cast<std::uint64_t>(
                std::upper_bound(highs_.begin(), highs_.end(), i) - highs_.begin());
            return high << 32 | low_[i];
        }
        std::size_t size() const { return low_.size(); }
        // The index of the first number above `bound` (or_equal: not below it), or size().
        std::size_t first_above(std::uint64_t bound, bool or_equal) const {
            std::size_t lo = 0, hi = size();
            while (lo < hi) {
                const std::size_t mid = lo + (hi - lo) / 2;
                const std::uint64_t v = (*this)[mid];
                if (v > bound || (or_equal && v == bound))
                    hi = mid;
                else
                    lo = mid + 1;
            }
            return lo;
        }

    private:
        PodLog<std::uint32_t> low_;
        std::vector<std::size_t> highs_; // highs_[k]: the first index whose high word is > k
    };
    Events events;
    PodLog<std::uint32_t> tags;
};

// Which sync op a SyncLog holds.
enum class SyncKind : std::uint8_t { acq, rel, vw, vr, benter, bexit, enq, deq };
inline constexpr std::size_t sync_kinds = 8;
inline bool tagged(SyncKind k) {
    return k == SyncKind::vw || k == SyncKind::vr || k == SyncKind::benter || k == SyncKind::bexit;
}

// The fork or join that made or ended a thread.
struct ThreadLink {
    ThreadId by = 0;
    std::uint64_t event = 0;
    ObjId set = no_object; // Symbols::thread_sets index
};

// 64-bit keys to 32-bit values by open addressing (at most half full): the recorder looks one up
// at every sync op, and a node-based map costs a cache miss more.
class FlatIndex {
public:
    // The value of `key`, made `fresh` (and true) when it had none.
    std::pair<std::uint32_t, bool> try_emplace(std::uint64_t key, std::uint32_t fresh);
    std::optional<std::uint32_t> find(std::uint64_t key) const;

private:
    std::size_t home(std::uint64_t key) const {
        return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
    }
    static constexpr std::uint64_t empty = ~std::uint64_t{0};
    std::vector<std::uint64_t> keys_ = std::vector<std::uint64_t>(16, empty);
    std::vector<std::uint32_t> values_ = std::vector<std::uint32_t>(16);
    int shift_ = 60; // 64 - log2(capacity)
    std::size_t size_ = 0;
};

// What one pass over a trace leaves behind (a sink of read_trace_file). Its memory grows with
// the (thread, object) pairs the trace uses, not with threads times objects.
class EventLog;

class TraceRecorder : public Analysis {
public:
    // `keep`: where the events go too, as they pass (for the check), without a second sink.
    explicit TraceRecorder(EventLog* keep = nullptr) : keep_(keep) {}
    void on_event(const Event& e, const Symbols& syms) override;
    void finish(const Symbols& syms) override; // sorts objects(); call it before the queries

    std::vector<RunLog> runs;                           // by variable id
    LockSets lock_sets;                                 // of the runs
    std::vector<std::optional<ThreadLink>> forked_by;   // by thread id
    std::vector<std::optional<ThreadLink>> joined_by;   // by thread id: its first join
    std::vector<std::vector<ThreadId>> barrier_threads; // by barrier id, sorted
    // The log of thread t's ops of kind k on obj; nullptr when there is none.
    const SyncLog* log(ThreadId t, SyncKind k, ObjId obj) const;
    // The objects on which thread t has ops of kind k, sorted (queue items for enq/deq).
    const std::vector<ObjId>& objects(ThreadId t, SyncKind k) const;

private:
    void on_barrier(const Event& e);
    void record(const Event& e, SyncKind k, ObjId obj, std::uint32_t tag);
    template <class T>
    static T& at(std::vector<T>& v, std::size_t i) {
        if (v.size() <= i)
            v.resize(i + 1);
        return v[i];
    }
    static std::uint64_t key(ThreadId t, ObjId obj) { return std::uint64_t{t} << 32 | obj; }
    EventLog* keep_;
    std::vector<SyncLog> logs_;
    // By kind, then (thread, object): the index of its log in logs_.
    std::array<FlatIndex, sync_kinds> log_index_;
    std::vector<std::array<std::vector<ObjId>, sync_kinds>> objects_; // by thread, then kind
    struct ThreadState {
        std::uint32_t held = 0;   // LockSets id of the locks it holds
        std::uint64_t rounds = 0; // its barrier departures so far
    };
    std::vector<ThreadState> threads_;           // by thread
    std::vector<std::uint32_t> open_generation_; // by barrier
    std::unordered_map<std::uint64_t, std::uint32_t>
        entered_; // by (thread, barrier): its generation
};

// An access mode of the output: EX(t), RS(T) or LOCK(m: T), by the names of the traces.
struct Mode {
    ModeKind kind = ModeKind::EX;
    std::vector<std::string> threads; // sorted
    std::string lock;                 // LOCK only
    friend bool operator==(const Mode&, const Mode&) = default;
};

// A label ▷^z / [·]^z: fork, join, a barrier, a volatile (with its value), a queue or a lock.
struct Label {
    MechKind kind = MechKind::lock;
    std::string name;                  // lock, volatile, barrier or queue
    std::optional<std::int64_t> value; // volatile with a value: v==K
    friend bool operator==(const Label&, const Label&) = default;
};

// A phase: consecutive accesses that one mode permits, with the choice's support.
struct Phase {
    Mode mode;
    std::uint64_t accesses = 0;
    std::string why; // "one thread", "only reads", "m held at every access"
    friend bool operator==(const Phase& a, const Phase& b) { return a.mode == b.mode; }
};

// One element of a chain: a phase, a loop of phases in order ([p1 ▷ … ▷ pk]^z), or a loop of
// alternatives ([p1 ⊔ … ⊔ pk]^z).
struct Element {
    enum class Kind : std::uint8_t { phase, sequence_loop, alternative_loop } kind = Kind::phase;
    std::vector<Mode> modes;
    std::vector<Label> inner; // sequence_loop: the k-1 labels between its modes
    Label back;               // loops: the label of [·]^z
    std::uint64_t accesses = 0, phases = 1;
    std::string why;
    bool same_shape(const Element& o) const {
        return kind == o.kind && modes == o.modes && inner == o.inner &&
               (kind == Kind::phase || back == o.back);
    }
};

// A variable's discipline as one trace shows it: elements joined by labels.
struct Chain {
    std::vector<Element> elements;
    std::vector<Label> labels;     // labels[i] joins elements[i] and elements[i + 1]
    std::vector<std::string> whys; // why labels[i]: which events carry it
    std::vector<std::string> traces;
};

struct RaceNote {
    std::string trace;
    std::string thread, op;
    std::uint64_t event = 0, with_event = 0;
};

struct InferredVariable {
    std::string name;
    std::uint64_t accesses = 0;
    std::vector<std::string> threads;     // in order of first access
    std::vector<std::string> traces;      // the traces that access it
    std::vector<Chain> chains;            // one per distinct shape
    std::optional<RaceNote> race;         // hb's first race: then no discipline
    std::optional<std::string> unordered; // no single mechanism orders two phases: why
    std::string discipline;               // empty when there is none (set by finish())
    std::string expanded;                 // the same with every group written out (JSON)
};

// A declared name of the output, by kind (DeclKind spells `threads`, `lock`, ...).
enum class DeclKind : std::uint8_t { thread, lock, volatile_, barrier, queue, variable };
const char* to_string(DeclKind k); // "thread", "lock", "volatile", "barrier", "queue", "variable"

struct Declarations {
    std::vector<std::string> threads, locks, volatiles, queues;
    std::vector<std::pair<std::string, std::vector<std::string>>> barriers; // with threads
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
};

// An error of the input: traces that disagree, a name the language cannot declare, a --spec
// that contradicts the traces (its line).
struct InferError {
    std::string where; // FILE:LINE:COL of --spec's declaration, or empty
    std::string message;
    std::string to_string() const; // "WHERE: error: MESSAGE" or "sfgc infer: error: MESSAGE"
};

// The inference over several traces.
class Inferrer {
public:
    Inferrer();
    ~Inferrer();
    // Declarations that must be kept (those of --spec): names, kinds, barriers' threads, with the
    // file and line of each, for errors.
    void keep_declaration(std::string name, DeclKind kind, std::vector<std::string> threads,
                          std::string where);
    void keep_group(std::string name, std::vector<std::string> threads);
    // One trace, after its pass: its recorder, symbols and hb's race findings.
    std::optional<InferError> add_trace(const std::string& trace, const TraceRecorder& rec,
                                        const Symbols& syms, const std::vector<Finding>& races);
    // hb's races of a trace already added, for a caller that runs hb after the inference: a
    // variable whose discipline the enforcer admits on a trace is race-free there (thesis
    // Theorem 4.2.2, docs/enforcement.md), so only those without one (races_matter()) can race.
    void add_races(const std::string& trace, const Symbols& syms,
                   const std::vector<Finding>& races);
    bool races_matter() const; // some variable has no discipline and no race named yet
    // The result: declarations (groups added where threads behave alike) and every variable.
    std::optional<InferError> finish();
    const Declarations& declarations() const;
    const std::vector<InferredVariable>& variables() const;
    std::size_t trace_count() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The output spec (docs/infer.md): declarations, then `var x : D;` with comments.
std::string render_sfg(const Inferrer& inf);
// `--format json` (docs/infer.md).
std::string render_json(const Inferrer& inf);

} // namespace sfg::infer
