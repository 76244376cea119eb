// sfg::spec from a generated header's static data (spec.hpp): the names, then N(G) for each
// annotated variable (thesis Figure 4.11, petri_net.hpp), queue edges q(o) included (thesis §5.1).
#include "spec_impl.hpp"

#include <algorithm>
#include <stdexcept>

namespace sfg {

namespace {

// Reads spec_data with every index checked: a header edited by hand gets an exception, never
// undefined behaviour.
class Reader {
public:
    explicit Reader(const spec_data::spec& d) : d_(d) {}

    const char* name(std::uint32_t i) const {
        if (i >= d_.name_count || !d_.names[i])
            bad("name index");
        return d_.names[i];
    }
    std::vector<std::uint32_t> indices(spec_data::list l) const {
        if (l.first > d_.list_count || l.count > d_.list_count - l.first)
            bad("list");
        return {d_.lists + l.first, d_.lists + l.first + l.count};
    }
    std::vector<std::string> names(spec_data::list l) const {
        std::vector<std::string> out;
        for (std::uint32_t i : indices(l))
            out.emplace_back(name(i));
        return out;
    }
    [[noreturn]] static void bad(const char* what) {
        throw std::invalid_argument(std::string("sfg::spec: inconsistent spec data (") + what +
                                    " out of range)");
    }

private:
    const spec_data::spec& d_;
};

Discipline discipline(const Reader& r, const spec_data::spec& d, const spec_data::variable& v) {
    Discipline g;
    if (v.modes.first > d.mode_count || v.modes.count > d.mode_count - v.modes.first ||
        v.edges.first > d.edge_count || v.edges.count > d.edge_count - v.edges.first)
        Reader::bad("mode or edge run");
    for (std::uint32_t i = 0; i < v.modes.count; ++i) {
        const spec_data::mode& m = d.modes[v.modes.first + i];
        AccessMode a;
        a.kind = m.kind;
        a.threads = r.names(m.threads);
        std::sort(a.threads.begin(), a.threads.end());
        if (m.kind == ModeKind::LOCK) {
            a.lock = r.name(m.lock);
            if (a.lock.empty())
                Reader::bad("the lock of a LOCK mode");
        }
        g.modes.push_back(std::move(a));
    }
    const auto mode_index = [&](std::uint32_t i) {
        if (i >= v.modes.count)
            Reader::bad("mode index");
        return i;
    };
    for (std::uint32_t i = 0; i < v.edges.count; ++i) {
        const spec_data::edge& e = d.edges[v.edges.first + i];
        ModeEdge me;
        me.from = mode_index(e.from);
        me.to = mode_index(e.to);
        me.mech.kind = e.kind;
        if (e.has_value) {
            if (e.kind != MechKind::volatile_)
                Reader::bad("a value on an edge that is not a volatile's");
            me.mech.value = e.value;
        }
        me.mech.name = r.name(e.name);
        if (e.kind == MechKind::queue && me.mech.name.empty())
            throw std::invalid_argument(
                "sfg::spec: inconsistent spec data (a queue edge that names no queue)");
        me.mech.thread = r.name(e.thread);
        me.mech.threads = r.names(e.threads);
        std::sort(me.mech.threads.begin(), me.mech.threads.end());
        if (e.family_from.count == 0) {
            g.edges.push_back(std::move(me));
            continue;
        }
        EdgeFamily f{{}, {}, std::move(me.mech)};
        for (std::uint32_t a : r.indices(e.family_from))
            f.from.push_back(mode_index(a));
        for (std::uint32_t b : r.indices(e.family_to))
            f.to.push_back(mode_index(b));
        const auto one_thread = [&](std::uint32_t a) { return g.modes[a].threads.size() == 1; };
        if ((f.mech.kind != MechKind::lock && f.mech.kind != MechKind::volatile_) ||
            !std::all_of(f.from.begin(), f.from.end(), one_thread) ||
            !std::all_of(f.to.begin(), f.to.end(), one_thread))
            throw std::invalid_argument("sfg::spec: inconsistent spec data (an edge family that "
                                        "is not a lock's or volatile's between modes of one "
                                        "thread each)");
        g.families.push_back(std::move(f));
    }
    for (std::uint32_t i : r.indices(v.in))
        g.in.push_back(mode_index(i));
    for (std::uint32_t i : r.indices(v.out))
        g.out.push_back(mode_index(i));
    return g;
}

} // namespace

spec::spec(const spec_data::spec& d) {
    auto impl = std::make_shared<detail::SpecImpl>();
    const Reader r(d);
    impl->file = d.file ? d.file : "";
    impl->hash = d.hash;
    impl->threads = r.names(d.threads);
    impl->locks = r.names(d.locks);
    impl->volatiles = r.names(d.volatiles);
    impl->queues = r.names(d.queues);
    if (d.barrier_count && !d.barriers)
        Reader::bad("barriers");
    for (std::size_t i = 0; i < d.barrier_count; ++i)
        impl->barriers.emplace_back(r.name(d.barriers[i].name));
    if ((d.variable_count && !d.variables) || (d.mode_count && !d.modes) ||
        (d.edge_count && !d.edges) || (d.list_count && !d.lists))
        Reader::bad("table");
    for (std::size_t i = 0; i < d.variable_count; ++i) {
        const spec_data::variable& v = d.variables[i];
        impl->variables.emplace_back(r.name(v.name));
        if (v.annotated)
            impl->disciplines.emplace_back(impl->variables.back(), discipline(r, d, v));
    }
    for (const auto& [var, g] : impl->disciplines)
        impl->nets.emplace_back(var, build_petri_net(g));
    for (const std::string& n : impl->threads)
        impl->kinds.emplace(n, Namespace::thread);
    for (const std::string& n : impl->locks)
        impl->kinds.emplace(n, Namespace::lock);
    for (const std::string& n : impl->volatiles)
        impl->kinds.emplace(n, Namespace::volatile_);
    for (const std::string& n : impl->barriers)
        impl->kinds.emplace(n, Namespace::barrier);
    for (const std::string& n : impl->queues)
        impl->kinds.emplace(n, Namespace::queue);
    for (const std::string& n : impl->variables)
        impl->kinds.emplace(n, Namespace::variable);
    impl_ = std::move(impl);
}

const std::string& spec::file() const {
    return impl_->file;
}
std::uint64_t spec::hash() const {
    return impl_->hash;
}
const std::vector<std::string>& spec::threads() const {
    return impl_->threads;
}
const std::vector<std::string>& spec::locks() const {
    return impl_->locks;
}
const std::vector<std::string>& spec::volatiles() const {
    return impl_->volatiles;
}
const std::vector<std::string>& spec::barriers() const {
    return impl_->barriers;
}
const std::vector<std::string>& spec::queues() const {
    return impl_->queues;
}
const std::vector<std::string>& spec::variables() const {
    return impl_->variables;
}

} // namespace sfg
