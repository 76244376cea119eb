// The translation of a program into a C++ body under sfg::explore (explore_translation.hpp).
#include "explore_translation.hpp"

#include "sfg/explore.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace sfg::checker::test {
namespace {

// The data variable (its index in Model::shared) of an enq's or deq's queue item.
std::uint32_t item_var(const Model& m, std::uint32_t item) {
    const ObjId sym = m.syms.queue_items.var(item);
    for (std::uint32_t s = 0; s < m.shared.size(); ++s)
        if (!m.shared[s].is_volatile && m.shared[s].sym == sym)
            return s;
    throw std::logic_error("a queue item that is no data variable");
}

// A data variable's value. `write x;` leaves the value (docs/programs.md): the value it stores is
// x's at the step, which a value passed to store() would fix before the step's scheduling point
// instead, so a `keep` cell's assignment changes nothing.
struct Cell {
    std::int64_t value = 0;
    bool keep = false;
    Cell() = default;
    Cell(std::int64_t v, bool k = false) : value(v), keep(k) {}
    Cell(const Cell&) = default;
    Cell& operator=(const Cell& c) {
        if (!c.keep)
            value = c.value;
        return *this;
    }
};

// The program's objects in one run of the body.
struct World {
    explicit World(const Model& model) : m(model) {
        for (const SharedVar& v : m.shared) {
            if (v.is_volatile) {
                index.push_back(vols.size());
                vols.emplace_back(v.name, v.init);
            } else {
                index.push_back(vars.size());
                vars.emplace_back(v.name, v.init);
            }
        }
        for (const std::string& l : m.locks)
            locks.emplace_back(l);
        for (const BarrierInfo& b : m.barriers)
            barriers.emplace_back(b.name, static_cast<std::ptrdiff_t>(b.members.size()));
        for (const std::string& c : m.conds)
            conds.emplace_back(c);
        for (const std::string& q : m.queues)
            queues.emplace_back(q);
    }

    std::int64_t load(std::uint32_t s) {
        const SharedVar& v = m.shared[s];
        return v.is_volatile ? vols[index[s]].load() : vars[index[s]].load().value;
    }
    void store(std::uint32_t s, std::int64_t x) {
        if (m.shared[s].is_volatile)
            vols[index[s]].store(x);
        else
            vars[index[s]].store(x);
    }

    void fork(std::uint32_t set);
    void join(std::uint32_t set) {
        std::unique_ptr<sfg::thread_group>& g = groups[set];
        g->join();
    }
    void await(const Instr& i, std::vector<std::int64_t>& locals);
    void run(ThreadId t);

    const Model& m;
    std::vector<std::size_t> index;
    std::deque<sfg::shared<Cell>> vars;
    std::deque<sfg::volatile_var<std::int64_t>> vols;
    std::deque<sfg::mutex> locks;
    std::deque<sfg::barrier> barriers;
    std::deque<sfg::condition_variable> conds;
    std::deque<sfg::queue<Cell>> queues;
    std::map<std::uint32_t, std::unique_ptr<sfg::thread_group>> groups;
};

void World::fork(std::uint32_t set) {
    auto g = std::make_unique<sfg::thread_group>();
    for (ThreadId u : m.thread_sets[set])
        g->add(m.threads[u].name, [this, u] { run(u); });
    g->start();
    groups[set] = std::move(g);
}

// nullopt: a division by zero.
std::optional<std::int64_t> binary(BinOp op, std::int64_t a, std::int64_t b) {
    const auto wrap = [](auto f) { return static_cast<std::int64_t>(f); };
    switch (op) {
    case BinOp::add:
        return wrap(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    case BinOp::sub:
        return wrap(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
    case BinOp::mul:
        return wrap(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    case BinOp::div:
    case BinOp::mod:
        if (b == 0)
            return std::nullopt;
        if (a == INT64_MIN && b == -1)
            return op == BinOp::div ? a : 0;
        return op == BinOp::div ? a / b : a % b;
    case BinOp::eq:
        return a == b;
    case BinOp::ne:
        return a != b;
    case BinOp::lt:
        return a < b;
    case BinOp::le:
        return a <= b;
    case BinOp::gt:
        return a > b;
    case BinOp::ge:
        return a >= b;
    }
    return 0;
}

enum class Local { done, divzero, visible };

// A local instruction at pc on the stack and locals (pc: the last instruction done); `visible`
// for any other.
Local local_step(const Instr& i, std::vector<std::int64_t>& stack,
                 std::vector<std::int64_t>& locals, std::size_t& pc) {
    const auto pop = [&] {
        const std::int64_t v = stack.back();
        stack.pop_back();
        return v;
    };
    switch (i.code) {
    case Code::push:
        stack.push_back(i.value);
        return Local::done;
    case Code::load_l:
        stack.push_back(locals[i.arg]);
        return Local::done;
    case Code::store_l:
        locals[i.arg] = pop();
        return Local::done;
    case Code::unary: {
        const std::int64_t v = pop();
        stack.push_back(i.op == 0 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v))
                                  : v == 0);
        return Local::done;
    }
    case Code::binary: {
        const std::int64_t b = pop(), a = pop();
        const std::optional<std::int64_t> v = binary(static_cast<BinOp>(i.op), a, b);
        if (!v)
            return Local::divzero;
        stack.push_back(*v);
        return Local::done;
    }
    case Code::and_:
        if (stack.back() == 0)
            pc = i.arg - 1;
        else
            stack.pop_back();
        return Local::done;
    case Code::or_:
        if (stack.back() != 0) {
            stack.back() = 1;
            pc = i.arg - 1;
        } else {
            stack.pop_back();
        }
        return Local::done;
    case Code::norm:
        stack.back() = stack.back() != 0;
        return Local::done;
    case Code::jump:
        pc = i.arg - 1;
        return Local::done;
    case Code::jump_if_zero:
        if (pop() == 0)
            pc = i.arg - 1;
        return Local::done;
    default:
        return Local::visible;
    }
}

// `await e;` as sfg::await on the volatiles of e's condition code (all of them named: the
// dependence of programs' await): the condition evaluated on the thread's locals, a division by
// zero making it hold (the step fails, as the model's does) and failing after it.
void World::await(const Instr& i, std::vector<std::int64_t>& locals) {
    const std::vector<Instr>& code = m.awaits[i.arg];
    std::vector<const sfg::volatile_var<std::int64_t>*> named;
    for (const Instr& c : code)
        if (c.code == Code::load_s &&
            std::find(named.begin(), named.end(), &vols[index[c.arg]]) == named.end())
            named.push_back(&vols[index[c.arg]]);
    bool divzero = false;
    const auto holds = [&] {
        std::vector<std::int64_t> stack;
        divzero = false;
        for (std::size_t pc = 0; code[pc].code != Code::halt; ++pc) {
            if (code[pc].code == Code::load_s) {
                stack.push_back(vols[index[code[pc].arg]].load());
                continue;
            }
            if (local_step(code[pc], stack, locals, pc) == Local::divzero) {
                divzero = true;
                return true;
            }
        }
        return stack.back() != 0;
    };
    // A local await is no step: true, the thread goes on; false, it is stuck for good (its
    // locals cannot change), as on an await that never holds.
    if (i.code == Code::await_ || !holds())
        sfg::await(holds, std::span<const sfg::volatile_var<std::int64_t>* const>(named));
    sfg::check(!divzero, "divzero line " + std::to_string(i.line));
}

// Thread t's code, instruction by instruction: local ones on a stack, visible ones as the sfg
// operation each stands for (barrier b; is benter then bexit: one arrive_and_wait; wait c m; is
// cwait then cwake: one wait).
void World::run(ThreadId t) {
    const ThreadCode& code = m.threads[t];
    std::vector<std::int64_t> locals(code.locals, 0), stack;
    std::vector<std::unique_ptr<sfg::deterministic>> blocks;
    const auto pop = [&] {
        const std::int64_t v = stack.back();
        stack.pop_back();
        return v;
    };
    for (std::size_t pc = 0; pc < code.code.size(); ++pc) {
        const Instr& i = code.code[pc];
        switch (local_step(i, stack, locals, pc)) {
        case Local::done:
            continue;
        case Local::divzero:
            sfg::check(false, "divzero line " + std::to_string(i.line));
            continue;
        case Local::visible:
            break;
        }
        switch (i.code) {
        case Code::await_:
        case Code::await_local:
            await(i, locals);
            break;
        case Code::assert_:
            sfg::check(pop() != 0, "assert line " + std::to_string(i.line));
            break;
        case Code::halt:
            return;
        case Code::load_s:
            stack.push_back(load(i.arg));
            break;
        case Code::store_s:
            store(i.arg, pop());
            break;
        case Code::read_s:
            (void)load(i.arg);
            break;
        case Code::write_s: // data variables only (translatable)
            vars[index[i.arg]].store(Cell(0, true));
            break;
        case Code::acq:
            locks[i.arg].lock();
            break;
        case Code::rel:
            locks[i.arg].unlock();
            break;
        case Code::fork:
            fork(i.arg);
            break;
        case Code::join:
            join(i.arg);
            break;
        case Code::benter:
            barriers[i.arg].arrive_and_wait();
            break;
        case Code::begin:
            blocks.push_back(std::make_unique<sfg::deterministic>());
            break;
        case Code::end:
            blocks.pop_back();
            break;
        case Code::xchg: {
            const std::int64_t e = pop();
            stack.push_back(vols[index[i.arg]].exchange(e));
            break;
        }
        case Code::cas: {
            const std::int64_t e2 = pop();
            std::int64_t e1 = pop();
            stack.push_back(vols[index[i.arg]].compare_exchange_strong(e1, e2));
            break;
        }
        case Code::fadd: {
            const std::int64_t e = pop();
            stack.push_back(vols[index[i.arg]].fetch_add(e));
            break;
        }
        case Code::cwait: {
            std::unique_lock<sfg::mutex> l(locks[static_cast<std::size_t>(i.value)],
                                           std::adopt_lock);
            conds[i.arg].wait(l);
            l.release(); // still held, as after `wait c m;`
            break;
        }
        case Code::notify:
            conds[i.arg].notify_one();
            break;
        case Code::enq:
            queues[m.syms.queue_items.queue(i.arg)].push(vars[index[item_var(m, i.arg)]]);
            break;
        case Code::deq: // the queue's only object: at the front whenever it is not empty
            (void)queues[m.syms.queue_items.queue(i.arg)].pop();
            break;
        case Code::notifyall:
            conds[i.arg].notify_all();
            break;
        default: // bexit (with benter), cwake (with cwait)
            break;
        }
    }
}

} // namespace

bool translatable(const Model& m) {
    std::set<std::vector<ThreadId>> forked;
    std::map<ObjId, std::set<std::uint32_t>> queued; // each queue's objects
    for (const ThreadCode& t : m.threads)
        for (const Instr& i : t.code) {
            if (i.code == Code::fork)
                forked.insert(m.thread_sets[i.arg]);
            if (i.code == Code::enq || i.code == Code::deq)
                queued[m.syms.queue_items.queue(i.arg)].insert(item_var(m, i.arg));
        }
    for (const auto& [q, objects] : queued)
        if (objects.size() > 1) // a deq may wait for an object behind another
            return false;
    for (const ThreadCode& t : m.threads)
        for (const Instr& i : t.code) {
            switch (i.code) {
            case Code::await_: // sfg::await loads volatiles only
                for (const Instr& c : m.awaits[i.arg])
                    if (c.code == Code::load_s && !m.shared[c.arg].is_volatile)
                        return false;
                break;
            case Code::join:
                if (!forked.contains(m.thread_sets[i.arg]))
                    return false;
                break;
            case Code::write_s: // volatile_var::store fixes its value before the step
                if (m.shared[i.arg].is_volatile)
                    return false;
                break;
            default:
                break;
            }
        }
    return true;
}

std::function<void()> translation(const Model& m) {
    return [&m] {
        World w(m);
        std::optional<ThreadId> main;
        std::vector<ThreadId> others;
        for (ThreadId t = 0; t < m.threads.size(); ++t)
            if (m.threads[t].root) {
                if (m.threads[t].name == "main")
                    main = t;
                else
                    others.push_back(t);
            }
        sfg::thread_group roots;
        for (ThreadId t : others)
            roots.add(m.threads[t].name, [&w, t] { w.run(t); });
        if (!others.empty())
            roots.start();
        if (main) {
            try {
                w.run(*main);
            } catch (const sfg::check_failure&) {
            }
        }
        if (!others.empty())
            roots.join();
    };
}

std::string translation_analyses(const Model& m) {
    const bool blocks = std::any_of(m.threads.begin(), m.threads.end(), [](const ThreadCode& t) {
        return std::any_of(t.code.begin(), t.code.end(),
                           [](const Instr& i) { return i.code == Code::begin; });
    });
    return blocks ? "enforce,hb,singletrack" : "enforce,hb";
}

SpecData::SpecData(const CompiledSpec& c) {
    name("");
    const auto [locks, volatiles, queues, barriers] = mechanisms_by_kind(c);
    for (const MechanismDecl* b : barriers)
        barriers_.push_back({name(b->name), names_list(b->threads)});
    data_.threads = names_list(c.threads);
    data_.locks = names_list(locks);
    data_.volatiles = names_list(volatiles);
    data_.queues = names_list(queues);
    for (const CompiledVariable& v : c.variables)
        variable(v);
    for (const std::string& n : names_)
        pointers_.push_back(n.c_str());
    data_.file = "translation";
    data_.names = pointers_.data();
    data_.name_count = pointers_.size();
    data_.lists = lists_.data();
    data_.list_count = lists_.size();
    data_.barriers = barriers_.data();
    data_.barrier_count = barriers_.size();
    data_.modes = modes_.data();
    data_.mode_count = modes_.size();
    data_.edges = edges_.data();
    data_.edge_count = edges_.size();
    data_.variables = variables_.data();
    data_.variable_count = variables_.size();
}

std::uint32_t SpecData::name(const std::string& n) {
    const auto [it, fresh] = ids_.emplace(n, static_cast<std::uint32_t>(names_.size()));
    if (fresh)
        names_.push_back(n);
    return it->second;
}

spec_data::list SpecData::list(const std::vector<std::uint32_t>& ix) {
    const auto first = static_cast<std::uint32_t>(lists_.size());
    lists_.insert(lists_.end(), ix.begin(), ix.end());
    return {first, static_cast<std::uint32_t>(ix.size())};
}

spec_data::list SpecData::names_list(const std::vector<std::string>& ns) {
    std::vector<std::uint32_t> ix;
    for (const std::string& n : ns)
        ix.push_back(name(n));
    return list(ix);
}

spec_data::edge SpecData::edge(const Mechanism& z) {
    spec_data::edge e{};
    e.kind = z.kind;
    e.name = name(z.name);
    e.thread = name(z.thread);
    e.threads = names_list(z.threads);
    e.has_value = z.value.has_value();
    e.value = z.value.value_or(0);
    return e;
}

void SpecData::variable(const CompiledVariable& v) {
    spec_data::variable row{name(v.name), v.sfg.has_value(), {}, {}, {}, {}};
    if (v.sfg) {
        const Discipline& g = *v.sfg;
        row.modes = {static_cast<std::uint32_t>(modes_.size()),
                     static_cast<std::uint32_t>(g.modes.size())};
        for (const AccessMode& a : g.modes)
            modes_.push_back({a.kind, names_list(a.threads), name(a.lock)});
        row.edges = {static_cast<std::uint32_t>(edges_.size()),
                     static_cast<std::uint32_t>(g.edges.size() + g.families.size())};
        for (const ModeEdge& me : g.edges) {
            spec_data::edge e = edge(me.mech);
            e.from = me.from;
            e.to = me.to;
            edges_.push_back(e);
        }
        for (const EdgeFamily& f : g.families) {
            spec_data::edge e = edge(f.mech);
            e.family_from = list(f.from);
            e.family_to = list(f.to);
            edges_.push_back(e);
        }
        row.in = list(g.in);
        row.out = list(g.out);
    }
    variables_.push_back(row);
}

} // namespace sfg::checker::test
