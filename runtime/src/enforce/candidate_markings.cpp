#include "candidate_markings.hpp"

#include <algorithm>
#include <bit>

namespace sfg::enforce {

void CandidateMarkings::add_variable(VarIx v, ShapeIx shape, const NetShape& s, bool eager,
                                     std::span<const MechIx> edge_mechs, NetNames& names,
                                     SyncIndex& index) {
    VarState& var = vars_.emplace_back();
    explicit_coloured_ = unknown_count; // (closes_ points into vars_)
    var.shape = shape;
    var.eager = eager;
    if (!eager)
        return;
    if (memoized(s) && automata_.size() <= shape.ix())
        automata_.resize(shape.ix() + 1);
    if (factor_ && factored_.size() <= shape.ix())
        factored_.resize(shape.ix() + 1);
    if (factor_ && factored_[shape].first.empty())
        factored_[shape] = factor(s);

    // Index: this variable's snd/rcv transitions by (mechanism, thread, role).
    const Net& net = s.net;
    std::vector<std::pair<std::uint64_t, TransitionIx>> keyed;
    for (std::size_t r = 0; r < net.transitions.size(); ++r) {
        const Transition& t = net.transitions[r];
        if (t.kind == TransitionKind::sync || t.edge >= net.edge_count())
            continue;
        const Role role = t.kind == TransitionKind::snd ? Role::snd : Role::rcv;
        keyed.emplace_back(sync_key(edge_mechs[t.edge], names.intern_thread(t.thread), role),
                           TransitionIx::at(r));
    }
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < keyed.size();) {
        std::size_t j = i;
        Subscription sub = Subscription::of(v, static_cast<std::uint32_t>(transitions_.size()));
        for (; j < keyed.size() && keyed[j].first == keyed[i].first; ++j)
            transitions_.push_back(keyed[j].second);
        sub.count = static_cast<std::uint32_t>(j - i);
        index.subscribe(keyed[i].first, sub);
        if (memoized(s)) {
            sub_lists_.resize(transitions_.size());
            sub_lists_[sub.begin] = automata_[shape].intern_list(transitions(sub));
        }
        i = j;
    }
    index.invalidate();
    if (s.coloured)
        index_colours(v, var, s, edge_mechs);
    start(var, s);
}

void CandidateMarkings::index_colours(VarIx v, VarState& var, const NetShape& s,
                                      std::span<const MechIx> edge_mechs) {
    var.colour = static_cast<std::uint32_t>(colours_.size());
    Colours& col = colours_.emplace_back();
    col.edge_barrier.assign(edge_mechs.size(), MechIx::none());
    for (std::size_t e = 0; e < edge_mechs.size(); ++e) {
        if (s.net.mechanism(static_cast<std::uint32_t>(e)).kind != MechKind::barrier)
            continue;
        const MechIx m = edge_mechs[e];
        col.edge_barrier[e] = m;
        if (coloured_.size() <= m.ix())
            coloured_.resize(m.ix() + 1);
        if (coloured_[m.ix()].empty() || coloured_[m.ix()].back() != v)
            coloured_[m.ix()].push_back(v);
    }
    for (PlaceIx p : s.coloured_places)
        if (s.colour_kind[p] != NetShape::uncoloured)
            (s.colour_kind[p] == NetShape::waiting ? col.waiting
             : s.colour_kind[p] == NetShape::armed ? col.armed
                                                   : col.sent)
                .push_back(
                    {p, col.edge_barrier[s.colour_edge[p].ix()], s.place_thread[p], s.twin[p]});
    for (const Colours::Token& at : col.armed) {
        auto it = std::find_if(col.armed_places.begin(), col.armed_places.end(),
                               [&](const auto& ap) { return ap.first == at.barrier; });
        if (it == col.armed_places.end())
            it = col.armed_places.insert(it, {at.barrier, {}});
        if (it->second.size() <= at.thread.ix())
            it->second.resize(at.thread.ix() + 1, 0);
        it->second[at.thread.ix()] |= std::uint64_t{1} << std::min<std::uint32_t>(at.place.v, 63);
    }
    for (PlaceIx p : s.coloured_places) {
        const MechIx m = col.edge_barrier[s.colour_edge[p].ix()];
        auto it = std::find_if(col.barrier_places.begin(), col.barrier_places.end(),
                               [&](const auto& bp) { return bp.barrier == m; });
        if (it == col.barrier_places.end())
            it = col.barrier_places.insert(it, {m});
        const std::uint64_t bit = std::uint64_t{1} << std::min<std::uint32_t>(p.v, 63);
        it->all |= bit;
        it->sent |= s.colour_kind[p] == NetShape::sent ? bit : 0;
    }
    const FactoredShape* f =
        factor_ && factored_[var.shape].factorable ? &factored_[var.shape] : nullptr;
    if (!f)
        return;
    const std::size_t coords = f->coord_thread.size();
    for (std::size_t g = 0; g < coords; ++g)
        for (std::size_t bit = 0; bit < f->position[g].size(); ++bit) {
            const PlaceIx p = f->position[g][bit];
            if (!p.valid() || s.colour_kind[p] == NetShape::uncoloured)
                continue;
            const MechIx m = col.edge_barrier[s.colour_edge[p].ix()];
            auto it = std::find_if(col.colour_masks.begin(), col.colour_masks.end(),
                                   [&](const auto& cm) { return cm.first == m; });
            if (it == col.colour_masks.end()) {
                col.colour_masks.emplace_back(m, ColourMasks{});
                it = col.colour_masks.end() - 1;
                it->second.at.resize(coords);
                for (std::size_t h = 0; h < coords; ++h) {
                    it->second.at[h].dead = f->dead_bit[h];
                    it->second.at[h].thread = f->coord_thread[h];
                }
            }
            ColourMasks::Coord& at = it->second.at[g];
            const std::uint64_t b = std::uint64_t{1} << bit;
            switch (s.colour_kind[p]) {
            case NetShape::sent:
                at.sent |= b;
                break;
            case NetShape::armed:
                at.armed |= b;
                break;
            default:
                at.waiting |= b;
                at.twins |= f->twin_bit[p];
                break;
            }
        }
}

void CandidateMarkings::index_closes() {
    explicit_coloured_ = 0;
    closes_.assign(coloured_.size(), {});
    for (std::size_t b = 0; b < coloured_.size(); ++b)
        for (VarIx v : coloured_[b]) {
            VarState& var = vars_[v]; // (eager: only those have colours)
            explicit_coloured_ += !var.factored;
            if (!var.factored) {
                closes_[b].explicit_vars.push_back(v);
                continue;
            }
            for (const auto& [mb, cm] : colours_[var.colour].colour_masks)
                if (mb.ix() == b)
                    closes_[b].products.push_back({&var.products, &factored_[var.shape], &cm});
        }
}

void CandidateMarkings::colour_steps(MechIx m, const ColourOp& op, const NetShapes& shapes) {
    if (op.kind == ColourOp::enter) // (the close arms)
        return;
    if (explicit_coloured_ == unknown_count)
        index_closes();
    if (op.kind == ColourOp::close) { // (every round: no detour through the variables)
        if (m.ix() >= closes_.size())
            return;
        for (const Close::Products& c : closes_[m.ix()].products)
            c.products->colour_step(*c.shape, *c.masks, op);
        for (VarIx v : closes_[m.ix()].explicit_vars)
            colour_step(v, m, op, shapes);
        return;
    }
    const bool after_rcv = op.kind == ColourOp::exit && op.after_rcv;
    if ((after_rcv || op.kind == ColourOp::open) && explicit_coloured_ == 0)
        return;
    for (VarIx v : coloured(m)) {
        VarState& var = vars_[v];
        if (!var.factored) {
            colour_step(v, m, op, shapes);
            continue;
        }
        if (after_rcv || op.kind == ColourOp::open) // (products: in the rcv step, at the close)
            continue;
        for (const auto& [b, cm] : colours_[var.colour].colour_masks)
            if (b == m)
                var.products.colour_step(factored_[var.shape], cm, op);
    }
}

void CandidateMarkings::colour_step(VarIx v, MechIx m, const ColourOp& op,
                                    const NetShapes& shapes) {
    VarState& var = vars_[v];
    const NetShape& s = shapes[var.shape];
    if (!var.set.valid()) {
        if (colour_explicit(var, var.cands.view(), s, m, op, &var.cands))
            var.cands.swap(next_);
        return;
    }
    // Memoized: the step is the automaton's, by the places it moves (which depend on who is
    // inside the generation, not only on the set).
    colour_moves_.clear();
    CandidateAutomaton& a = automata_[var.shape];
    // (Only the places the set's markings hold: fewer keys. An exit moves t's armed ones.)
    if (op.kind == ColourOp::exit) {
        if (!a.may_hold_any(var.set, colours_[var.colour].armed_of(m, op.thread)))
            return;
        for (const Colours::Token& at : colours_[var.colour].armed)
            if (at.barrier == m && at.thread == op.thread && a.may_hold(var.set, at.place))
                colour_moves_.emplace_back(at.place, PlaceIx::none());
    } else {
        const Colours::BarrierPlaces bp = colours_[var.colour].places_of(m);
        const std::uint64_t held =
            a.places(var.set) & (op.kind == ColourOp::open ? bp.sent : bp.all);
        if (held == 0)
            return;
        const BarrierRound* r = round(m);
        auto move = [&](PlaceIx p) {
            if (const PlaceIx q = colour_moved(colours_[var.colour].edge_barrier, s, m, op, r, p);
                q != p)
                colour_moves_.emplace_back(p, q);
        };
        if (held >> 63) { // (places past 62: each one's own test)
            for (PlaceIx p : s.coloured_places)
                if (a.may_hold(var.set, p))
                    move(p);
        } else {
            for (std::uint64_t b = held; b != 0; b &= b - 1)
                move(PlaceIx(static_cast<std::uint32_t>(std::countr_zero(b))));
        }
    }
    if (colour_moves_.empty())
        return;
    Colours& col = colours_[var.colour];
    auto recent = std::find_if(col.recent_moves.begin(), col.recent_moves.end(),
                               [&](const auto& r) { return r.first == colour_moves_; });
    if (recent == col.recent_moves.end()) {
        if (col.recent_moves.size() < 4)
            recent = col.recent_moves.emplace(recent);
        else
            recent = col.recent_moves.begin() + static_cast<std::ptrdiff_t>(col.next_recent++ % 4);
        recent->first = colour_moves_;
        recent->second = a.intern_moves(colour_moves_);
    }
    var.set = a.colour_step(var.set, recent->second, s);
    grown(var.shape);
    collect_if_full(shapes);
}

bool CandidateMarkings::inside_flags(MechIx b) const {
    if (!rounds_ || b.ix() >= rounds_->size() || (*rounds_)[b.ix()].open == 0 ||
        (*rounds_)[b.ix()].inside.empty())
        return false;
    armed_inside_.clear();
    for (NetThread u : (*rounds_)[b.ix()].inside) {
        if (armed_inside_.size() <= u.ix())
            armed_inside_.resize(u.ix() + 1, 0);
        armed_inside_[u.ix()] = 1;
    }
    return true;
}

const FactoredCandidates& CandidateMarkings::armed(const VarState& var) const {
    if (var.colour == none)
        return var.products;
    bool copied = false;
    for (const auto& [b, cm] : colours_[var.colour].colour_masks) {
        if (!inside_flags(b))
            continue;
        if (!copied)
            armed_ = var.products;
        copied = true;
        armed_.arm(factored_[var.shape], cm, armed_inside_);
    }
    return copied ? armed_ : var.products;
}

bool CandidateMarkings::shown_moved(const VarState& var) const {
    std::vector<std::pair<PlaceIx, PlaceIx>>& moved = shown_moved_;
    moved.clear();
    if (var.colour == none || !rounds_)
        return false;
    for (const Colours::Token& w : colours_[var.colour].waiting)
        if (const BarrierRound* r = round(w.barrier);
            r && r->open != 0 &&
            std::find(r->inside.begin(), r->inside.end(), w.thread) != r->inside.end())
            moved.emplace_back(w.place, w.twin);
    for (const Colours::Token& a : colours_[var.colour].armed)
        if (const BarrierRound* r = round(a.barrier); r && r->has_left(a.thread))
            moved.emplace_back(a.place, PlaceIx::none());
    for (const Colours::Token& a : colours_[var.colour].sent)
        if (const BarrierRound* r = round(a.barrier); r && r->open == 0)
            moved.emplace_back(a.place, PlaceIx::none());
    std::sort(moved.begin(), moved.end());
    return !moved.empty();
}

CandidateView CandidateMarkings::armed(const VarState& var, CandidateView from,
                                       CandidateSet& scratch) const {
    // The W places whose thread is inside go to their twins, the PreRcv places whose thread
    // left to none, and so do the PostSnd places of a closed round.
    if (!shown_moved(var))
        return from;
    const std::vector<std::pair<PlaceIx, PlaceIx>>& moved = shown_moved_;
    CandidateSet out;
    CandidateBuilder builder;
    builder.start(out, from.count());
    std::vector<PlaceIx> m;
    from.for_each([&](std::span<const PlaceIx> mk) {
        m.clear();
        for (PlaceIx p : mk) {
            const auto it = std::lower_bound(moved.begin(), moved.end(), std::pair(p, PlaceIx(0)));
            if (it == moved.end() || it->first != p)
                m.push_back(p);
            else if (it->second.valid())
                m.push_back(it->second);
        }
        std::sort(m.begin(), m.end());
        if (!m.empty())
            builder.add(m);
    });
    scratch.swap(out);
    return scratch.view();
}

// Where ColourOp op on barrier m moves the token on p; none: it dies. A close also kills the
// armed tokens of the threads that left the barrier since (`round`): explicit sets keep them
// until then, as their sets then repeat from round to round as without colours, and they
// cannot fire before (a departure comes after its generation's close).
PlaceIx CandidateMarkings::colour_moved(std::span<const MechIx> edge_barrier, const NetShape& s,
                                        MechIx m, const ColourOp& op, const BarrierRound* round,
                                        PlaceIx p) {
    const auto kind = s.colour_kind[p];
    if (kind == NetShape::uncoloured || edge_barrier[s.colour_edge[p].ix()] != m)
        return p;
    const NetThread u = s.place_thread[p];
    if (op.kind == ColourOp::close) {
        if (kind == NetShape::waiting && op.is_inside(u))
            return s.twin[p];
        if (kind == NetShape::armed)
            return round && round->has_left(u) ? PlaceIx::none() : p;
        return kind == NetShape::sent ? p
                                      : PlaceIx::none(); // (sent: dead from now, killed at open)
    }
    if (op.kind == ColourOp::open)
        return kind == NetShape::sent ? PlaceIx::none() : p;
    if (op.kind == ColourOp::exit)
        return kind == NetShape::armed && u == op.thread ? PlaceIx::none() : p;
    return p; // enter: nothing (the close arms)
}

// Each candidate's tokens on the edges of barrier m, moved as ColourOp says; a token that dies
// leaves the marking, and a marking left empty is no candidate.
bool CandidateMarkings::colour_explicit(const VarState& var, CandidateView from, const NetShape& s,
                                        MechIx m, const ColourOp& op, CandidateSet* in_place) {
    // The op's moves, once per place (sorted), and those below 64 as a mask: most places of
    // most markings do not move.
    const BarrierRound* r = round(m);
    colour_moves_.clear();
    std::uint64_t near = 0, targets = 0, dies = 0;
    bool far = false, renames = true; // renames: every place moved below 64
    for (PlaceIx p : s.coloured_places)
        if (const PlaceIx q = colour_moved(colours_[var.colour].edge_barrier, s, m, op, r, p);
            q != p) {
            colour_moves_.emplace_back(p, q);
            if (p.v < 64)
                near |= std::uint64_t{1} << p.v;
            else
                far = true;
            renames = renames && p.v < 64 && (!q.valid() || q.v < 64);
            if (q.valid() && q.v < 64)
                targets |= std::uint64_t{1} << q.v;
            if (!q.valid() && p.v < 64)
                dies |= std::uint64_t{1} << p.v;
        }
    if (colour_moves_.empty())
        return false;
    auto moves = [&](PlaceIx p) { return p.v < 64 ? (near >> p.v & 1) != 0 : far; };
    auto moved = [&](PlaceIx p) {
        if (!moves(p))
            return p;
        const auto it =
            std::lower_bound(colour_moves_.begin(), colour_moves_.end(), std::pair(p, PlaceIx(0)));
        return it == colour_moves_.end() || it->first != p ? p : it->second;
    };
    bool any = false;
    from.for_each([&](std::span<const PlaceIx> mk) {
        for (PlaceIx p : mk) {
            any = any || (moves(p) && moved(p) != p);
            renames = renames && (p.v >= 64 || ((targets | dies) >> p.v & 1) == 0);
        }
    });
    if (!any)
        return false;
    if (renames && in_place) {
        // No held token dies and no marking holds a place a token moves to: the markings stay
        // distinct, each of its size, and are rewritten where they are (as when a close arms
        // the one waiting token of a large set).
        in_place->rewrite([&](std::span<PlaceIx> mk) {
            bool changed = false;
            for (PlaceIx& p : mk)
                if (moves(p)) {
                    p = moved(p);
                    changed = true;
                }
            if (changed)
                std::sort(mk.begin(), mk.end());
        });
        return false;
    }
    builder_.start(next_, from.count());
    from.for_each([&](std::span<const PlaceIx> mk) {
        fired_.clear();
        for (PlaceIx p : mk)
            if (const PlaceIx q = moved(p); q.valid())
                fired_.push_back(q);
        std::sort(fired_.begin(), fired_.end());
        if (!fired_.empty())
            builder_.add(fired_);
    });
    return true;
}

void CandidateMarkings::start(VarState& var, const NetShape& s) {
    var.cands.clear();
    var.set = SetIx::none();
    var.factored = factor_ && factored_[var.shape].factorable;
    explicit_coloured_ = unknown_count;
    if (var.factored) {
        var.products.assign(factored_[var.shape], factored_[var.shape].initial);
        return;
    }
    for (const auto& m : s.initial)
        var.cands.push(m);
    if (memoized(s)) { // the automaton is kept across resets: its steps do not depend on the trace
        var.set = automata_[var.shape].intern(var.cands.view(), s);
        var.cands.clear();
        grown(var.shape);
    }
}

void CandidateMarkings::unfactor(VarState& var, const NetShapes& shapes) {
    var.products.materialize(factored_[var.shape], var.cands);
    var.factored = false;
    explicit_coloured_ = unknown_count;
    ++unfactored_;
    if (!memoized(shapes[var.shape]))
        return;
    var.set = automata_[var.shape].intern(var.cands.view(), shapes[var.shape]);
    var.cands.clear();
    grown(var.shape);
    collect_if_full(shapes);
}

void CandidateMarkings::reset(const NetShapes& shapes) {
    for (VarState& var : vars_) {
        var.cands.clear();
        if (var.eager)
            start(var, shapes[var.shape]);
    }
    collect_if_full(shapes);
    collections_ = unfactored_ = 0;
}

// next_ = L ∪ { close(M -r->) | M ∈ L, r ∈ trs enabled by M } ([SKIP] keeps every M;
// [SEND]/[RECEIVE] fire r; [SYNC] closes).
bool CandidateMarkings::successors(CandidateView cands, std::span<const TransitionIx> trs,
                                   const NetShape& s) {
    // The successors first; many visits have none (no candidate holds the token the op needs),
    // and then nothing changes.
    successors_.clear();
    cands.for_each([&](std::span<const PlaceIx> m) {
        for (TransitionIx r : trs) {
            if (m.size() == 1 && s.single_next[r].valid()) { // {•r} -r-> -sync-> {q}
                if (m[0] == s.pre(r)[0])
                    successors_.push(std::span<const PlaceIx>(&s.single_next[r], 1));
                continue;
            }
            if (enabled(s, m, r)) {
                fire_closed(s, m, r, fired_, tmp_);
                successors_.push(fired_);
            }
        }
    });
    if (successors_.count() == 0)
        return false;
    builder_.start(next_, cands.count() + successors_.count());
    cands.for_each([&](std::span<const PlaceIx> m) { builder_.add(m); });
    successors_.for_each([&](std::span<const PlaceIx> m) { builder_.add(m); });
    return true;
}

bool CandidateMarkings::sync_step(const Subscription& sub, const NetShapes& shapes) {
    VarState& var = vars_[sub.var()];
    if (bool fired; var.factored && factored_sync_step(var, transitions(sub), fired, shapes))
        return fired;
    if (var.set.valid())
        return memo_sync_step(var, sub_lists_[sub.begin], shapes);
    if (!successors(var.cands.view(), transitions(sub), shapes[var.shape]))
        return false;
    var.cands.swap(next_);
    return true;
}

bool CandidateMarkings::sync_step(VarIx v, std::span<const TransitionIx> trs,
                                  const NetShapes& shapes) {
    VarState& var = vars_[v];
    if (bool fired; var.factored && factored_sync_step(var, trs, fired, shapes))
        return fired;
    if (var.set.valid())
        return memo_sync_step(var, automata_[var.shape].intern_list(trs), shapes);
    if (!successors(var.cands.view(), trs, shapes[var.shape]))
        return false;
    var.cands.swap(next_);
    return true;
}

bool CandidateMarkings::factored_sync_step(VarState& var, std::span<const TransitionIx> trs,
                                           bool& fired, const NetShapes& shapes) {
    const int r = var.products.sync_step(factored_[var.shape], trs);
    if (r < 0 || var.products.crowd() > max_products_)
        unfactor(var, shapes); // (r >= 0: the step is done, its result leaves the products)
    fired = r > 0;
    return r >= 0;
}

// A step of var's automaton: looked up, or computed as successors() does and memoized.
bool CandidateMarkings::memo_sync_step(VarState& var, TrListIx l, const NetShapes& shapes) {
    CandidateAutomaton& a = automata_[var.shape];
    const std::uint32_t to = a.sync_step(var.set, l, shapes[var.shape]);
    var.set = SetIx(to & ~CandidateAutomaton::changed_bit);
    grown(var.shape);
    collect_if_full(shapes);
    return to & CandidateAutomaton::changed_bit;
}

bool CandidateMarkings::memo_memory_step(VarState& var, NetThread t, bool write,
                                         const NetShapes& shapes) {
    if (!t.valid())
        return false;
    CandidateAutomaton& a = automata_[var.shape];
    const std::uint32_t to = a.memory_step(var.set, t, write, shapes[var.shape]);
    if (to != SetIx::none_value)
        var.set = SetIx(to);
    grown(var.shape);
    collect_if_full(shapes);
    return to != SetIx::none_value;
}

// The re-synchronized state (docs/enforcement.md): { P(a) | a permits the offending access },
// as if the discipline had been (re-)entered at such a mode just before it. When no mode
// permits it at all, the access is ignored and the candidates are kept.
void CandidateMarkings::resync(VarIx v, NetThread t, bool write, HeldLocks held,
                               const NetShapes& shapes) {
    VarState& var = vars_[v];
    const NetShape& s = shapes[var.shape];
    if (!t.valid())
        return;
    if (var.factored)
        return var.products.resync(factored_[var.shape], t, write, held);
    bool any = false;
    for (ModeIx a : s.mode_acc.indices())
        if (s.permits(a, t, write, held) && !s.mode_acc[a].empty()) {
            if (!any)
                builder_.start(next_, s.mode_acc.size());
            any = true;
            builder_.add(s.mode_acc[a]);
        }
    if (!any)
        return;
    if (var.set.valid()) {
        var.set = automata_[var.shape].intern(next_.view(), s);
        grown(var.shape);
        collect_if_full(shapes);
    } else {
        var.cands.swap(next_);
    }
}

// Every automaton keeps only the sets variables are in and forgets its steps between sets; the
// markings and their successors are kept while they take at most half the limit. The next
// limit counts from there (the variables' own sets are not the memo's to bound).
void CandidateMarkings::collect(const NetShapes& shapes) {
    std::vector<std::vector<SetIx*>> live(automata_.size());
    for (VarState& var : vars_)
        if (var.set.valid())
            live[var.shape.ix()].push_back(&var.set);
    std::size_t marking_bytes = 0;
    for (const CandidateAutomaton& a : automata_)
        marking_bytes += a.marking_bytes();
    const bool keep_markings = marking_bytes <= limit_ / 2;
    automata_bytes_ = 0;
    for (ShapeIx sh : automata_.indices()) {
        automata_[sh].collect(live[sh.ix()], shapes[sh], keep_markings);
        automata_bytes_ += automata_[sh].growth(); // (all of it: a new accounting)
    }
    live_bytes_ = automata_bytes_ - (keep_markings ? marking_bytes : 0);
    ++collections_;
}

} // namespace sfg::enforce
