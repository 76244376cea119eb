// A step of an explored run as the exploration engine sees it (docs/explore.md, "Dependence"),
// private to runtime/src/explore: the thread, the op it takes, and the actions on objects that
// the dependence relation of docs/programs.md reads from the op table. Objects are numbers the
// system gives them (sfg::explore: by namespace and name, the same in every run).
#pragma once

#include "sfg/runtime/engine/foata.hpp"
#include "sfg/runtime/op.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

namespace sfg::explore_detail {

inline constexpr std::uint32_t no_object = std::numeric_limits<std::uint32_t>::max();

// One op on one object (its namespace: op_info(op).space).
struct Action {
    Op op = Op::read;
    std::uint32_t object = no_object;
    friend bool operator==(const Action&, const Action&) = default;
};

// An event's actions: two inline (a wait's rel and wait, a wake's wake and acq, a
// read-modify-write's vr and vw), more (an await's vr of each volatile of its condition) in a
// vector: an event is copied at every step and every node of the search, and would otherwise
// allocate each time.
class Actions {
public:
    void push_back(const Action& a) {
        if (n_ < a_.size()) {
            a_[n_++] = a;
            return;
        }
        if (n_ == a_.size()) // from now on all of them in more_
            more_.assign(a_.begin(), a_.end());
        more_.push_back(a);
        ++n_;
    }
    void clear() {
        n_ = 0;
        more_.clear();
    }
    bool empty() const { return n_ == 0; }
    std::size_t size() const { return n_; }
    const Action& front() const { return *begin(); }
    const Action& operator[](std::size_t i) const { return begin()[i]; }
    const Action* begin() const { return n_ <= a_.size() ? a_.data() : more_.data(); }
    const Action* end() const { return begin() + n_; }

private:
    std::array<Action, 2> a_{};
    std::vector<Action> more_;
    std::uint32_t n_ = 0;
};

struct Event {
    std::uint32_t thread = 0;
    Op op = Op::read;     // what the step is (a try_lock is an acquire that may fail)
    bool attempt = false; // try_lock, try_pop: never blocks
    bool yield = false;   // sfg::yield(): no action
    Actions actions;
    // fork: the threads it starts; join: the threads it waits for (by number).
    std::vector<std::uint32_t> names;
    std::uint32_t lock = no_object; // a condition variable's mutex (cond_wait, cond_wake)
    std::uint32_t count = 0;        // barrier_enter: the barrier's count
    // barrier_enter, barrier_exit: the generation it belongs to (Model::generation; 0: none).
    std::uint32_t generation = 0;
    // An await naming no volatiles: its actions are what this evaluation read, which another
    // order of the same steps may change (SourceDpor's System::reads_vary).
    bool reads_vary = false;
};

// Two steps are dependent (docs/programs.md, "Dependence"): of one thread; a fork or join naming
// the other's thread; forks or joins naming a common thread, unless both are joins; or actions
// on one object that conflict (op_table's Access and phase), except an arrival and a departure
// of different generations of one barrier.
bool dependent(const Event& a, const Event& b);

// The Mazurkiewicz class of a run under `dependent`: a 128-bit hash of its Foata normal form.
using ClassId = engine::ClassId;
// The levels of each thread and object, kept between runs, so that a run's class allocates
// nothing once they have grown: objects by number (each object's number is its own, whatever its
// namespace), a barrier's rounds apart.
struct FoataScratch {
    std::vector<engine::FoataLevels> threads, objects;
    struct Round {
        std::uint32_t object = 0, generation = 0;
        engine::FoataLevels levels;
    };
    std::vector<Round> rounds;
};
// `object_keys[o]` names object o the same way in every run and process (its numbers are those
// of one controller: the order it met the objects in).
ClassId foata_class(std::span<const Event> run, std::span<const std::uint64_t> object_keys,
                    FoataScratch& scratch);

} // namespace sfg::explore_detail
