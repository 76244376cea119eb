// SingleTrack's external-serializability (XS) analysis (SingleTrack, Figure 5;
// docs/determinism.md): the transactional happens-before graph, a node per transaction (a
// deterministic block with the threads forked inside it, or one event outside every block) and
// an edge wherever an event of one happens before a conflicting event of another. The trace is
// externally serializable iff the graph stays acyclic.
//
// Each edge insertion that could close a cycle searches the graph (as Velodrome does), so the
// first event that puts a block on a cycle is found exactly. Nodes that can never be on a future
// cycle are freed, so that memory depends on the threads, objects and open blocks, not on the
// length of the trace:
// - a closed node (one that can receive no more edges: a block no thread is in any more, a unary
//   transaction after its event) without incoming edges, or without outgoing edges that nothing
//   refers to any more, is deleted;
// - a closed unary node, or a closed block already reported on a cycle, that nothing refers to any
//   more is bypassed: its predecessors get edges to its successors, which keeps every path
//   between the other nodes. (So a reported cycle may skip such nodes: an edge then stands for a
//   path.)
#pragma once

#include "sfg/runtime/determinism/thread_records.hpp"
#include "sfg/runtime/event.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace sfg {

class TransactionalHbGraph {
public:
    using Node = std::uint64_t; // the event number that made it; 0: none (⊥)

    // A block put on a cycle for the first time by the event being applied.
    struct Cycle {
        Node block = 0; // its `begin`
        // The nodes of a closed walk through it (labels: a block by its `begin`, a unary
        // transaction by its event), starting with the target of the edge the event added, which
        // is the last node's edge back to the first.
        std::vector<Node> nodes;
        // Why each edge is there, along `nodes` (edge i goes from nodes[i] to nodes[i + 1], the
        // last one back to nodes[0]): the earlier event and the later one of a conflicting pair;
        // `path` when the edge stands for a path through bypassed nodes (from its first event to
        // its last).
        struct Cause {
            std::uint64_t from_event = 0, to_event = 0;
            bool path = false;
        };
        std::vector<Cause> causes;
    };

    // The events by thread t, under the XS rules: `block` is the block t is in (0: none), `e` the
    // event. cycles() then lists the blocks the event put on a cycle for the first time.
    void begin(ThreadId t, Node block, const Event& e);             // XS BEGIN
    void access(ThreadId t, Node block, Namespace space, ObjId obj, // XS READ / WRITE /
                Op op, const Event& e);                             // ACQUIRE / RELEASE
    void fork(ThreadId t, Node block, std::span<const ThreadId> children, const Event& e);
    void join(ThreadId t, Node block, std::span<const ThreadId> joined, const Event& e);
    void barrier_enter(ThreadId t, Node block, std::uint64_t generation, const Event& e);
    // A generation no departure can come from any more.
    void barrier_forget(std::uint64_t generation);
    void barrier_exit(ThreadId t, Node block, std::uint64_t generation, bool last_of_generation,
                      const Event& e);
    // No thread is in block b any more: it receives no more edges.
    void close(Node b);
    // Thread t ended: it has no more events, only joins of it to come.
    void retire(ThreadId t);

    // The blocks the last event applied put on a cycle for the first time, by `begin`.
    const std::vector<Cycle>& cycles() const { return cycles_; }

    std::size_t live_nodes() const { return live_; }
    std::size_t peak_nodes() const { return peak_; }
    std::size_t thread_records() const { return last_.capacity(); }

private:
    // A node's slot and the generation of the slot (a freed node's handle finds nothing);
    // 0: none (⊥).
    using Handle = std::uint64_t;
    struct Ref { // a node a rule will draw edges from, and the event it stands for there
        Handle node = 0;
        std::uint64_t event = 0;
    };
    struct Edge {
        Handle to = 0;
        Cycle::Cause cause;
    };
    struct NodeState {
        Node label = 0; // 0: the slot is free
        std::uint32_t generation = 0;
        bool block = false;
        bool open = true;
        bool cycled = false; // a block found on a cycle
        std::uint32_t refs = 0;
        std::vector<Edge> out;
        std::vector<Handle> in;
    };

    Handle make(Node label, bool block);
    NodeState* find(Handle h) {
        const std::uint64_t slot = (h & 0xffffffffu) - 1;
        if (!h || slot >= slots_.size())
            return nullptr;
        NodeState& s = slots_[slot];
        return s.label && s.generation == (h >> 32) ? &s : nullptr;
    }
    NodeState& at(Handle h) { return slots_[(h & 0xffffffffu) - 1]; }
    bool live(const Ref& r) { return find(r.node) != nullptr; }
    // The node of t's event: its block, or a fresh unary node after t's last (XS OUTSIDE);
    // `preds`: the rule draws an edge from a live node into it.
    Handle current(ThreadId t, Node block, const Event& e, bool preds);
    void finish_event(Handle unary);
    void edge(const Ref& from, Handle to, std::uint64_t to_event);
    bool add_edge(Handle from, Handle to, Cycle::Cause cause);
    void cycle_search(Handle from, Handle to, Cycle::Cause closing);
    void start_event() { cycles_.clear(); }
    void set(Ref& slot, Ref r);
    void drop(Ref& slot);
    void collect();
    void erase(Handle n);
    void bypass(Handle n);
    Ref& last(ThreadId t) { return last_[t]; }
    // ℒ(t) of a thread that may have ended: what a join of it draws its edge from.
    Ref ended_last(ThreadId t);
    struct Reads {
        std::vector<std::pair<ThreadId, Ref>> by_thread; // ℛ(x, ·) since the last write
        Ref write;                                       // 𝒲(x)
    };
    Reads& reads(Namespace space, ObjId obj);

    std::vector<NodeState> slots_;
    std::vector<std::uint32_t> free_;
    std::size_t live_ = 0, peak_ = 0;
    std::unordered_map<Node, Handle> open_blocks_;
    ThreadRecords<Ref> last_; // ℒ, of the threads that have not ended
    // ℒ of ended threads whose last node is alive, for joins (a thread may be joined twice);
    // entries whose node was freed are swept when the map has doubled.
    std::unordered_map<ThreadId, Ref> ended_;
    std::size_t sweep_at_ = 64;
    std::vector<Reads> vars_[3]; // 𝒲, ℛ: variables, volatiles, queues (each op a write)
    std::vector<Ref> releases_;  // 𝒰
    std::unordered_map<std::uint64_t, std::vector<Ref>> arrivals_; // by barrier generation
    std::vector<Handle> candidates_; // to collect at the end of the event
    std::vector<Cycle> cycles_;
    // Scratch of the cycle search.
    std::unordered_map<Handle, Handle> parent_;
    std::unordered_map<Handle, Handle> back_;
    std::vector<Handle> stack_;
};

} // namespace sfg
