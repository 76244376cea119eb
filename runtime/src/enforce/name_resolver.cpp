#include "name_resolver.hpp"

#include <algorithm>

namespace sfg::enforce {

namespace {
// Grows `map` to cover `id` (and the table), new entries `fill`.
template <class T>
T& slot_for(std::vector<T>& map, std::size_t table_size, ObjId id, T fill) {
    if (id >= map.size())
        map.resize(std::max<std::size_t>(std::size_t{id} + 1, table_size), fill);
    return map[id];
}
} // namespace

void NameResolver::reset(const Symbols* s) {
    syms_ = s;
    threads_.clear();
    vars_map_.clear();
    locks_.clear();
    volatiles_.clear();
    barriers_.clear();
    items_.clear();
    values_.clear();
    std::vector<NetThread> kept = std::move(kept_threads_);
    kept_threads_.clear();
    if (!s)
        return;
    // A thread resolved before is still its net thread if its name is (one comparison where a
    // hash lookup would be a few misses; NetThreads are never renumbered). Those resolved to
    // none are looked up again: a net added since may name them.
    kept.resize(std::min<std::size_t>(kept.size(), s->threads.size()));
    for (std::size_t t = 0; t < kept.size(); ++t) {
        if (!kept[t].valid() || kept[t] == unresolved<NetThread>)
            kept[t] = unresolved<NetThread>;
        else if (s->threads.name(static_cast<std::uint32_t>(t)) != names_.thread_name(kept[t]))
            return; // another trace's names: resolve afresh
    }
    threads_ = std::move(kept);
}

void NameResolver::next_trace() {
    std::vector<NetThread> kept = std::move(threads_);
    reset(nullptr);
    kept_threads_ = std::move(kept);
}

NetThread NameResolver::thread_slow(ThreadId t) {
    if (t == no_object || t >= syms_->threads.size())
        return NetThread::none();
    NetThread& g = slot_for(threads_, syms_->threads.size(), t, unresolved<NetThread>);
    if (g == unresolved<NetThread>)
        g = names_.find_thread(syms_->threads.name(t));
    return g;
}

VarRef NameResolver::var_slow(ObjId x) {
    if (x == no_object || x >= syms_->vars.size())
        return {};
    VarRef& r =
        slot_for(vars_map_, syms_->vars.size(), x, VarRef{unresolved<VarIx>, GroupIx::none()});
    if (r.var == unresolved<VarIx>) {
        r.var = vars_.find(syms_->vars.name(x));
        r.group = r.var.valid() ? vars_.list[r.var].group : GroupIx::none();
    }
    return r;
}

MechIx NameResolver::mechanism_slow(std::vector<MechIx>& map, const OpInfo& op, ObjId id) {
    const SymbolTable& table = syms_->names(op.space);
    if (id == no_object || id >= table.size())
        return MechIx::none();
    MechIx& m = slot_for(map, table.size(), id, unresolved<MechIx>);
    if (m == unresolved<MechIx>)
        m = names_.find_mechanism(mechanism_key(*op.mech, std::string(table.name(id))));
    return m;
}

MechIx NameResolver::value_mechanism_slow(ObjId volatile_id, ObjId value_id) const {
    if (volatile_id == no_object || volatile_id >= syms_->volatiles.size() ||
        value_id >= syms_->values.size())
        return MechIx::none();
    Mechanism m;
    m.kind = MechKind::volatile_;
    m.name = syms_->volatiles.name(volatile_id);
    m.value = syms_->values.value(value_id);
    return names_.find_mechanism(mechanism_key(m.kind, m.label()));
}

MechIx NameResolver::queue_item_slow(ObjId item) {
    if (item == no_object || item >= syms_->queue_items.size())
        return MechIx::none();
    MechIx& m = slot_for(items_, syms_->queue_items.size(), item, unresolved<MechIx>);
    if (m == unresolved<MechIx>)
        m = names_.find_mechanism(queue_item_key(syms_->queues.name(syms_->queue_items.queue(item)),
                                                 syms_->vars.name(syms_->queue_items.var(item))));
    return m;
}

} // namespace sfg::enforce
