#include "program_builder.hpp"

#include "token_loc.hpp"

#include <fmt/format.h>

#include <charconv>

namespace sfg {

namespace {

using P = sfg_gen::SfgParser;

prog::Ident ident(antlr4::tree::TerminalNode* n) {
    return {n->getText(), loc_of(n), {}}; // resolved by program_sema
}

struct Builder {
    Diagnostics& diags;

    // A decimal literal that must fit in 64 bits; `negative` allows -2^63.
    std::int64_t integer(antlr4::tree::TerminalNode* n, bool negative = false) {
        const std::string text = n->getText();
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        std::uint64_t limit = negative ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
        if (ec != std::errc{} || end != text.data() + text.size() || v > limit) {
            diags.error(loc_of(n), fmt::format("integer literal {} does not fit in 64 bits", text));
            return 0;
        }
        if (negative)
            return v == (std::uint64_t{1} << 63) ? INT64_MIN : -static_cast<std::int64_t>(v);
        return static_cast<std::int64_t>(v);
    }

    std::unique_ptr<prog::Expr> expr(P::ExprContext* c) {
        auto e = std::make_unique<prog::Expr>();
        e->loc = loc_of(c);
        if (auto* u = dynamic_cast<P::UnaryExprContext*>(c)) {
            e->kind = prog::Expr::Kind::unary;
            e->op = u->op->getText();
            e->lhs = expr(u->expr());
        } else if (auto* paren = dynamic_cast<P::ParenExprContext*>(c)) {
            return expr(paren->expr());
        } else if (auto* i = dynamic_cast<P::IntExprContext*>(c)) {
            e->kind = prog::Expr::Kind::integer;
            e->value = integer(i->INT());
        } else if (auto* n = dynamic_cast<P::NameExprContext*>(c)) {
            e->kind = prog::Expr::Kind::name;
            e->name = n->ID()->getText();
        } else {
            // Every binary alternative has two operands and an `op` token.
            antlr4::Token* op = nullptr;
            std::vector<P::ExprContext*> kids;
            if (auto* m = dynamic_cast<P::MulExprContext*>(c))
                op = m->op, kids = m->expr();
            else if (auto* a = dynamic_cast<P::AddExprContext*>(c))
                op = a->op, kids = a->expr();
            else if (auto* r = dynamic_cast<P::RelExprContext*>(c))
                op = r->op, kids = r->expr();
            else if (auto* q = dynamic_cast<P::EqExprContext*>(c))
                op = q->op, kids = q->expr();
            else if (auto* an = dynamic_cast<P::AndExprContext*>(c))
                op = an->op, kids = an->expr();
            else if (auto* o = dynamic_cast<P::OrExprContext*>(c))
                op = o->op, kids = o->expr();
            e->kind = prog::Expr::Kind::binary;
            e->op = op->getText();
            e->loc = loc_of(op);
            e->lhs = expr(kids.at(0));
            e->rhs = expr(kids.at(1));
        }
        return e;
    }

    std::vector<prog::Stmt> block(P::BlockContext* c) {
        std::vector<prog::Stmt> out;
        for (auto* s : c->stmt())
            out.push_back(stmt(s));
        return out;
    }

    // `r = WORD v e [e2]`: WORD is xchg, fadd (one operand) or cas (two), a word only here
    // (docs/programs.md); anything else is an error and the statement a skip.
    void rmw(prog::Stmt& s, const std::vector<antlr4::tree::TerminalNode*>& ids,
             const std::vector<P::ExprContext*>& operands) {
        using R = prog::Stmt::Rmw;
        const std::string word = ids.at(1)->getText();
        const R op = word == "xchg"   ? R::xchg
                     : word == "cas"  ? R::cas
                     : word == "fadd" ? R::fadd
                                      : R::none;
        if (op == R::none) {
            diags.error(loc_of(ids.at(1)),
                        fmt::format("expected 'xchg', 'cas' or 'fadd' (an atomic read-modify-write "
                                    "of a volatile), not '{}'",
                                    word));
            s.kind = prog::Stmt::Kind::skip;
            return;
        }
        const std::size_t want = op == R::cas ? 2 : 1;
        if (operands.size() != want) {
            diags.error(loc_of(ids.at(1)),
                        op == R::cas ? std::string("'cas' takes a volatile and two values: cas v "
                                                   "EXPECTED DESIRED (parenthesize a negative "
                                                   "DESIRED: cas v 1 (-2))")
                                     : fmt::format("'{}' takes a volatile and one value", word));
            s.kind = prog::Stmt::Kind::skip;
            return;
        }
        s.rmw = op;
        s.target = ident(ids.at(0));
        s.object = ident(ids.at(2));
        s.expr = expr(operands.at(0));
        if (op == R::cas)
            s.expr2 = expr(operands.at(1));
    }

    // `enq q x;`, `deq q x;`, `wait c m;`, `notify c;`, `notifyall c;`: the first word is a
    // statement word only here (docs/programs.md); any other name there starts an assignment
    // that lacks its '='.
    void word_stmt(prog::Stmt& s, const std::vector<antlr4::tree::TerminalNode*>& ids) {
        using K = prog::Stmt::Kind;
        const std::string word = ids.at(0)->getText();
        const bool three = ids.size() == 3;
        if (three && (word == "enq" || word == "deq" || word == "wait")) {
            s.kind = word == "enq" ? K::enq : word == "deq" ? K::deq : K::wait;
            s.target = ident(ids.at(1));
            s.object = ident(ids.at(2));
        } else if (!three && (word == "notify" || word == "notifyall")) {
            s.kind = word == "notify" ? K::notify : K::notifyall;
            s.target = ident(ids.at(1));
        } else {
            diags.error(loc_of(ids.at(1)),
                        fmt::format("expected '=' before '{}'", ids.at(1)->getText()));
            s.kind = K::skip;
        }
    }

    prog::Stmt stmt(P::StmtContext* c) {
        using K = prog::Stmt::Kind;
        prog::Stmt s;
        s.loc = loc_of(c);
        auto names = [](P::IdListContext* l) {
            std::vector<prog::Ident> v;
            for (auto* n : l->ID())
                v.push_back(ident(n));
            return v;
        };
        if (auto* x = dynamic_cast<P::LetStmtContext*>(c)) {
            s.kind = K::let, s.target = ident(x->ID()), s.expr = expr(x->expr());
        } else if (auto* x = dynamic_cast<P::AssignStmtContext*>(c)) {
            s.kind = K::assign, s.target = ident(x->ID()), s.expr = expr(x->expr());
        } else if (auto* x = dynamic_cast<P::LetRmwStmtContext*>(c)) {
            s.kind = K::let;
            rmw(s, x->ID(), x->expr());
        } else if (auto* x = dynamic_cast<P::AssignRmwStmtContext*>(c)) {
            s.kind = K::assign;
            rmw(s, x->ID(), x->expr());
        } else if (auto* x = dynamic_cast<P::ReadStmtContext*>(c)) {
            s.kind = K::read, s.target = ident(x->ID());
        } else if (auto* x = dynamic_cast<P::WriteStmtContext*>(c)) {
            s.kind = K::write, s.target = ident(x->ID());
        } else if (auto* x = dynamic_cast<P::AcqStmtContext*>(c)) {
            s.kind = K::acq, s.target = ident(x->ID());
        } else if (auto* x = dynamic_cast<P::RelStmtContext*>(c)) {
            s.kind = K::rel, s.target = ident(x->ID());
        } else if (auto* x = dynamic_cast<P::ForkStmtContext*>(c)) {
            s.kind = K::fork, s.threads = names(x->idList());
        } else if (auto* x = dynamic_cast<P::JoinStmtContext*>(c)) {
            s.kind = K::join, s.threads = names(x->idList());
        } else if (auto* x = dynamic_cast<P::BarrierStmtContext*>(c)) {
            s.kind = K::barrier, s.target = ident(x->ID());
        } else if (auto* x = dynamic_cast<P::AwaitStmtContext*>(c)) {
            s.kind = K::await_, s.expr = expr(x->expr());
        } else if (auto* x = dynamic_cast<P::AssertStmtContext*>(c)) {
            s.kind = K::assert_, s.expr = expr(x->expr());
        } else if (auto* x = dynamic_cast<P::IfStmtContext*>(c)) {
            s.kind = K::if_;
            s.expr = expr(x->expr());
            auto blocks = x->block();
            s.body = block(blocks.at(0));
            if (blocks.size() > 1) {
                s.has_else = true;
                s.else_body = block(blocks[1]);
            } else if (x->stmt() != nullptr) { // else if ...
                s.has_else = true;
                s.else_body.push_back(stmt(x->stmt()));
            }
        } else if (auto* x = dynamic_cast<P::WhileStmtContext*>(c)) {
            s.kind = K::while_, s.expr = expr(x->expr()), s.body = block(x->block());
        } else if (auto* x = dynamic_cast<P::RepeatStmtContext*>(c)) {
            s.kind = K::repeat, s.count = integer(x->INT()), s.body = block(x->block());
        } else if (dynamic_cast<P::SkipStmtContext*>(c)) {
            s.kind = K::skip;
        } else if (auto* x = dynamic_cast<P::DeterministicStmtContext*>(c)) {
            s.kind = K::deterministic, s.body = block(x->block());
        } else if (auto* x = dynamic_cast<P::QueueStmtContext*>(c)) {
            word_stmt(s, x->ID());
        } else if (auto* x = dynamic_cast<P::WordStmtContext*>(c)) {
            word_stmt(s, x->ID());
        }
        return s;
    }
};

} // namespace

std::shared_ptr<prog::Program> build_program(P::ProgramContext* ctx, Diagnostics& diags) {
    Builder b{diags};
    auto p = std::make_shared<prog::Program>();
    p->name = ident(ctx->ID());
    p->loc = loc_of(ctx);
    for (auto* item : ctx->programItem()) {
        if (auto* init = dynamic_cast<P::InitItemContext*>(item)) {
            // init ID = [-] INT ; : the sign, when there is one, is the fourth child.
            bool negative = init->children.size() > 5 && init->children[3]->getText() == "-";
            p->inits.push_back({ident(init->ID()), b.integer(init->INT(), negative), loc_of(init)});
        } else {
            auto* th = static_cast<P::ThreadItemContext*>(item);
            p->threads.push_back({ident(th->ID()), loc_of(th), b.block(th->block()), {}});
        }
    }
    return p;
}

} // namespace sfg
