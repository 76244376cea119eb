// Lowering a program to per-thread stack-machine code (model.hpp).
#include "sfg/checker/model.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace sfg::checker {

bool is_visible(Code c) {
    return c >= Code::load_s;
}

bool reads_shared(const std::vector<Instr>& cond) {
    return std::any_of(cond.begin(), cond.end(),
                       [](const Instr& i) { return i.code == Code::load_s; });
}

namespace {

BinOp binop(const std::string& op) {
    static const std::map<std::string, BinOp> ops = {
        {"+", BinOp::add}, {"-", BinOp::sub}, {"*", BinOp::mul}, {"/", BinOp::div},
        {"%", BinOp::mod}, {"==", BinOp::eq}, {"!=", BinOp::ne}, {"<", BinOp::lt},
        {"<=", BinOp::le}, {">", BinOp::gt},  {">=", BinOp::ge}};
    return ops.at(op);
}

class Lowerer {
public:
    // `slots`: each of the spec's mechanisms' index in m.shared (a volatile), m.locks,
    // m.barriers or m.queues.
    Lowerer(Model& m, const std::vector<std::uint32_t>& slots) : m_(m), slots_(slots) {}

    void thread(ThreadCode& t, const prog::Thread& th) {
        locals_.assign(th.locals.size(), 0);
        nlocals_ = 0;
        code_ = &t.code;
        block(th.body);
        emit(Code::halt, 0, line_);
        t.locals = nlocals_;
    }

    // A variable's or volatile's index in m.shared.
    std::uint32_t shared(const prog::Ref& r) const {
        if (r.kind == prog::Ref::Kind::variable)
            return r.index;
        if (r.kind == prog::Ref::Kind::volatile_)
            return slots_[r.index];
        throw std::logic_error("not a shared variable"); // program_sema resolved it
    }

private:
    std::uint32_t emit(Code c, std::uint32_t arg, std::uint32_t line, std::int64_t value = 0,
                       std::uint8_t op = 0) {
        code_->push_back(Instr{c, op, arg, value, line});
        return static_cast<std::uint32_t>(code_->size() - 1);
    }
    std::uint32_t here() const { return static_cast<std::uint32_t>(code_->size()); }
    void patch(std::uint32_t at) { (*code_)[at].arg = here(); }

    // Slots in the order the thread's `let`s and `repeat`s are lowered.
    std::uint32_t new_local() { return nlocals_++; }

    std::uint32_t thread_set(const std::vector<prog::Ident>& ids) {
        std::vector<ThreadId> set;
        for (const prog::Ident& id : ids)
            set.push_back(id.ref.index);
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
        auto it = std::find(m_.thread_sets.begin(), m_.thread_sets.end(), set);
        if (it != m_.thread_sets.end())
            return static_cast<std::uint32_t>(it - m_.thread_sets.begin());
        m_.thread_sets.push_back(set);
        m_.syms.thread_sets.push_back(set);
        return static_cast<std::uint32_t>(m_.thread_sets.size() - 1);
    }

    void expr(const prog::Expr& e) {
        switch (e.kind) {
        case prog::Expr::Kind::integer:
            emit(Code::push, 0, line_, e.value);
            return;
        case prog::Expr::Kind::name:
            if (e.ref.kind == prog::Ref::Kind::local)
                emit(Code::load_l, locals_[e.ref.index], line_);
            else
                emit(Code::load_s, shared(e.ref), line_);
            return;
        case prog::Expr::Kind::unary:
            expr(*e.lhs);
            emit(Code::unary, 0, line_, 0, e.op == "!" ? 1 : 0);
            return;
        case prog::Expr::Kind::binary:
            expr(*e.lhs);
            if (e.op == "&&" || e.op == "||") {
                std::uint32_t j = emit(e.op == "&&" ? Code::and_ : Code::or_, 0, line_);
                expr(*e.rhs);
                emit(Code::norm, 0, line_);
                patch(j);
                return;
            }
            expr(*e.rhs);
            emit(Code::binary, 0, line_, 0, static_cast<std::uint8_t>(binop(e.op)));
            return;
        }
    }

    void block(const std::vector<prog::Stmt>& body) {
        for (const prog::Stmt& s : body)
            stmt(s);
    }

    // One statement: its code, per kind (docs/programs.md, "The language").
    void stmt(const prog::Stmt& s) {
        using K = prog::Stmt::Kind;
        line_ = static_cast<std::uint32_t>(s.loc.line);
        switch (s.kind) {
        case K::let:
        case K::assign:
            return assign(s);
        case K::read:
            emit(Code::read_s, shared(s.target.ref), line_);
            return;
        case K::write:
            emit(Code::write_s, shared(s.target.ref), line_);
            return;
        case K::acq:
        case K::rel:
            emit(s.kind == K::acq ? Code::acq : Code::rel, slots_[s.target.ref.index], line_);
            return;
        case K::fork:
        case K::join:
            emit(s.kind == K::fork ? Code::fork : Code::join, thread_set(s.threads), line_);
            return;
        case K::barrier:
            emit(Code::benter, slots_[s.target.ref.index], line_);
            emit(Code::bexit, slots_[s.target.ref.index], line_);
            return;
        case K::await_:
            return await_stmt(s);
        case K::assert_:
            expr(*s.expr);
            emit(Code::assert_, 0, line_);
            return;
        case K::if_:
            return if_stmt(s);
        case K::while_:
            return while_stmt(s);
        case K::repeat:
            return repeat_stmt(s);
        case K::skip:
            return;
        case K::deterministic:
            emit(Code::begin, 0, line_);
            block(s.body);
            emit(Code::end, 0, static_cast<std::uint32_t>(s.loc.line));
            return;
        case K::wait:
            emit(Code::cwait, s.target.ref.index, line_, slots_[s.object.ref.index]);
            emit(Code::cwake, s.target.ref.index, line_, slots_[s.object.ref.index]);
            return;
        case K::notify:
        case K::notifyall:
            emit(s.kind == K::notify ? Code::notify : Code::notifyall, s.target.ref.index, line_);
            return;
        case K::enq:
        case K::deq:
            emit(s.kind == K::enq ? Code::enq : Code::deq,
                 m_.syms.queue_items.intern(slots_[s.target.ref.index],
                                            m_.shared[s.object.ref.index].sym),
                 line_);
            return;
        }
    }

    // `let r = e;`, `r = e;` or `x = e;` (e maybe a read-modify-write: its operands, then it).
    void assign(const prog::Stmt& s) {
        expr(*s.expr);
        if (s.rmw != prog::Stmt::Rmw::none) {
            using R = prog::Stmt::Rmw;
            if (s.expr2)
                expr(*s.expr2);
            emit(s.rmw == R::xchg  ? Code::xchg
                 : s.rmw == R::cas ? Code::cas
                                   : Code::fadd,
                 shared(s.object.ref), line_);
        }
        if (s.kind == prog::Stmt::Kind::let)
            locals_[s.target.ref.index] = new_local();
        if (s.target.ref.kind == prog::Ref::Kind::local)
            emit(Code::store_l, locals_[s.target.ref.index], line_);
        else
            emit(Code::store_s, shared(s.target.ref), line_);
    }

    // The condition goes to m.awaits, evaluated in one go; an await whose condition reads no
    // shared variable is local computation (docs/programs.md, "Step semantics").
    void await_stmt(const prog::Stmt& s) {
        std::vector<Instr> cond;
        std::vector<Instr>* saved = code_;
        code_ = &cond;
        expr(*s.expr);
        emit(Code::halt, 0, line_);
        code_ = saved;
        const bool local = !reads_shared(cond);
        m_.awaits.push_back(std::move(cond));
        emit(local ? Code::await_local : Code::await_,
             static_cast<std::uint32_t>(m_.awaits.size() - 1), line_);
    }

    void if_stmt(const prog::Stmt& s) {
        expr(*s.expr);
        std::uint32_t jz = emit(Code::jump_if_zero, 0, line_);
        block(s.body);
        if (s.has_else) {
            std::uint32_t j = emit(Code::jump, 0, line_);
            patch(jz);
            block(s.else_body);
            patch(j);
        } else {
            patch(jz);
        }
    }

    void while_stmt(const prog::Stmt& s) {
        std::uint32_t top = here();
        std::uint32_t line = line_;
        expr(*s.expr);
        std::uint32_t jz = emit(Code::jump_if_zero, 0, line);
        block(s.body);
        emit(Code::jump, top, line);
        patch(jz);
    }

    void repeat_stmt(const prog::Stmt& s) {
        std::uint32_t line = line_;
        std::uint32_t c = new_local(); // the counter
        emit(Code::push, 0, line, s.count);
        emit(Code::store_l, c, line);
        std::uint32_t top = emit(Code::load_l, c, line);
        std::uint32_t jz = emit(Code::jump_if_zero, 0, line);
        block(s.body);
        emit(Code::load_l, c, line);
        emit(Code::push, 0, line, 1);
        emit(Code::binary, 0, line, 0, static_cast<std::uint8_t>(BinOp::sub));
        emit(Code::store_l, c, line);
        emit(Code::jump, top, line);
        patch(jz);
    }

    Model& m_;
    const std::vector<std::uint32_t>& slots_;
    std::vector<std::uint32_t> locals_; // slot of each of the thread's locals (Ref::local)
    std::uint32_t nlocals_ = 0;
    std::vector<Instr>* code_ = nullptr;
    std::uint32_t line_ = 0;
};

void mark_forked(const std::vector<prog::Stmt>& body, std::vector<ThreadCode>& threads) {
    for (const prog::Stmt& s : body) {
        if (s.kind == prog::Stmt::Kind::fork)
            for (const prog::Ident& id : s.threads)
                threads[id.ref.index].root = false;
        mark_forked(s.body, threads);
        mark_forked(s.else_body, threads);
    }
}

} // namespace

Model lower(const CompiledSpec& spec, const ast::Program& program) {
    Model m;
    m.name = program.name.name;
    m.file = spec.file;
    const prog::Program& p = *program.body;
    for (const std::string& t : spec.threads) {
        m.syms.threads.intern(t);
        m.threads.push_back(ThreadCode{t, {}, 0, true, 0});
    }
    // m.shared: the variables (at their Ref::variable index), then the volatiles.
    for (const CompiledVariable& v : spec.variables) {
        m.shared.push_back(SharedVar{v.name, false, 0, m.syms.vars.intern(v.name)});
        if (v.net)
            m.nets.emplace_back(v.name, *v.net);
    }
    std::vector<std::uint32_t> slots(spec.mechanisms.size());
    for (std::size_t i = 0; i < spec.mechanisms.size(); ++i) {
        const MechanismDecl& d = spec.mechanisms[i];
        if (d.kind == MechKind::volatile_) {
            slots[i] = static_cast<std::uint32_t>(m.shared.size());
            m.shared.push_back(SharedVar{d.name, true, 0, m.syms.volatiles.intern(d.name)});
        } else if (d.kind == MechKind::lock) {
            slots[i] = m.syms.locks.intern(d.name);
            m.locks.push_back(d.name);
        } else if (d.kind == MechKind::barrier) {
            slots[i] = m.syms.barriers.intern(d.name);
            BarrierInfo b{d.name, {}};
            for (const std::string& t : d.threads)
                b.members.push_back(m.syms.threads.find(t));
            std::sort(b.members.begin(), b.members.end());
            m.barriers.push_back(std::move(b));
        } else if (d.kind == MechKind::queue) {
            slots[i] = m.syms.queues.intern(d.name);
            m.queues.push_back(d.name);
        }
    }
    for (const CondDecl& c : spec.conds) { // a cond's id is its Ref::cond index
        m.syms.conds.intern(c.name);
        m.conds.push_back(c.name);
    }
    Lowerer low(m, slots);
    for (const prog::Init& i : p.inits)
        m.shared[low.shared(i.var.ref)].init = i.value;

    for (const prog::Thread& t : p.threads)
        mark_forked(t.body, m.threads);

    std::vector<bool> done(m.threads.size(), false);
    for (const prog::Thread& t : p.threads) {
        const ThreadId id = t.name.ref.index;
        if (done[id])
            continue;
        done[id] = true;
        m.threads[id].line = static_cast<std::uint32_t>(t.loc.line);
        low.thread(m.threads[id], t);
    }
    for (ThreadCode& t : m.threads)
        if (t.code.empty())
            t.code.push_back(Instr{Code::halt, 0, 0, 0, 0});
    return m;
}

} // namespace sfg::checker
