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

#include "sfg/runtime/event.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace sfg {

class TransactionalHbGraph {
public:
    using Node = std::uint64_t; // the event number that made it; 0: none (⊥)

    // What closed a cycle, found while an event was applied.
    struct Cycle {
        // The nodes of one cycle through a block not on a cycle before (labels: a block by its
        // `begin`, a unary transaction by its event), starting with the target of the closing
        // edge, which is the last node's edge back to the first.
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
    // event. cycle() then tells whether the event put a block on a cycle for the first time.
    void begin(ThreadId t, Node block, const Event& e);             // XS BEGIN
    void access(ThreadId t, Node block, Namespace space, ObjId obj, // XS READ / WRITE /
                Op op, const Event& e);                             // ACQUIRE / RELEASE
    void fork(ThreadId t, Node block, std::span<const ThreadId> children, const Event& e);
    void join(ThreadId t, Node block, std::span<const ThreadId> joined, const Event& e);
    void barrier_enter(ThreadId t, Node block, std::uint64_t generation, const Event& e);
    void barrier_exit(ThreadId t, Node block, std::uint64_t generation, bool last_of_generation,
                      const Event& e);
    // No thread is in block b any more: it receives no more edges.
    void close(Node b);

    // The cycle closed by the last event applied, if any.
    const std::optional<Cycle>& cycle() const { return cycle_; }

    std::size_t live_nodes() const { return nodes_.size(); }
    std::size_t peak_nodes() const { return peak_; }

private:
    struct Ref { // a node a rule will draw edges from, and the event it stands for there
        Node node = 0;
        std::uint64_t event = 0;
    };
    struct Edge {
        Node to = 0;
        Cycle::Cause cause;
    };
    struct NodeState {
        bool block = false;
        bool open = true;
        bool cycled = false; // a block found on a cycle
        std::uint32_t refs = 0;
        std::vector<Edge> out;
        std::vector<Node> in;
    };

    // The node of t's event: its block, or a fresh unary node after t's last (XS OUTSIDE);
    // `preds`: the rule draws an edge from a live node into it.
    Node current(ThreadId t, Node block, const Event& e, bool preds);
    bool live(const Ref& r) const { return r.node && nodes_.count(r.node); }
    void finish_event(Node unary);
    void edge(const Ref& from, Node to, std::uint64_t to_event);
    bool add_edge(Node from, Node to, Cycle::Cause cause);
    void cycle_search(Node from, Node to, Cycle::Cause closing);
    void start_event() { cycle_.reset(); }
    void set(Ref& slot, Ref r);
    void drop(Ref& slot);
    NodeState* find(Node n);
    void collect();
    void erase(Node n);
    void bypass(Node n);
    Ref& last(ThreadId t);

    std::unordered_map<Node, NodeState> nodes_;
    std::vector<Ref> last_; // ℒ
    struct Reads {
        std::vector<std::pair<ThreadId, Ref>> by_thread; // ℛ(x, ·) since the last write
        Ref write;                                       // 𝒲(x)
    };
    std::unordered_map<std::uint64_t, Reads> vars_;                // by namespace and id
    std::unordered_map<ObjId, Ref> releases_;                      // 𝒰
    std::unordered_map<std::uint64_t, std::vector<Ref>> arrivals_; // by barrier generation
    std::vector<Node> candidates_; // to collect at the end of the event
    std::optional<Cycle> cycle_;
    std::size_t peak_ = 0;
    // Scratch of the cycle search.
    std::unordered_map<Node, Node> parent_;
    std::unordered_map<Node, Node> back_;
    std::vector<Node> stack_;
};

} // namespace sfg
