// Text -> AST (docs/language.md). ANTLR's console listeners are replaced by ours so that lexer and
// parser errors are ordinary diagnostics; the input is checked for UTF-8 and for nesting depth
// before ANTLR sees it, so garbage gets a diagnostic instead of a crash or a deep recursion.
#include "sfg/compiler/parse.hpp"

#include "SfgLexer.h"
#include "SfgParser.h"
#include "antlr4-runtime.h"
#include "big_stack.hpp"
#include "program_builder.hpp"
#include "token_loc.hpp"

#include <fmt/format.h>

#include <functional>

namespace sfg {

namespace {

using P = sfg_gen::SfgParser;

// Thrown from a listener to abandon the parse once the error limit is reached.
struct ErrorLimit {};

// Shows a character or token text in a message: printable text as is, the rest as escapes.
std::string show(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
        if (c < 0x20 || c == 0x7f)
            out += fmt::format("\\x{:02x}", c);
        else
            out += static_cast<char>(c);
    }
    if (out.size() > 40)
        out = out.substr(0, 37) + "...";
    return out;
}

// Code points in a UTF-8 string (columns count code points).
int code_points(std::string_view s) {
    int n = 0;
    for (unsigned char c : s)
        n += (c & 0xC0) != 0x80;
    return n;
}

// Replaces every invalid UTF-8 sequence by a space, reporting each one.
std::string sanitize_utf8(const std::string& text, Diagnostics& diags) {
    std::string out = text;
    int line = 1, col = 1, bad_line = -1, bad_col = -1;
    std::size_t i = 0;
    while (i < out.size()) {
        unsigned char c = static_cast<unsigned char>(out[i]);
        std::size_t len = c < 0x80           ? 1
                          : (c >> 5) == 0x6  ? 2
                          : (c >> 4) == 0xE  ? 3
                          : (c >> 3) == 0x1E ? 4
                                             : 0;
        bool ok = len != 0 && i + len <= out.size();
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (static_cast<unsigned char>(out[i + k]) & 0xC0) == 0x80;
        if (ok && len > 1) {
            // Overlong forms, surrogates and values past U+10FFFF are not UTF-8 either.
            std::uint32_t cp = c & (0x7F >> len);
            for (std::size_t k = 1; k < len; ++k)
                cp = (cp << 6) | (static_cast<unsigned char>(out[i + k]) & 0x3F);
            static constexpr std::uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
            ok = cp >= min_cp[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        }
        if (!ok) {
            // A run of bad bytes is one error.
            if (!(line == bad_line && col == bad_col + 1))
                diags.error({line, col}, fmt::format("invalid UTF-8 byte 0x{:02x}", c));
            bad_line = line;
            bad_col = col;
            if (diags.limit_reached())
                throw ErrorLimit{};
            out[i] = ' ';
            ++i;
            ++col;
            continue;
        }
        if (c == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
        i += len;
    }
    return out;
}

class LexerErrors : public antlr4::BaseErrorListener {
public:
    explicit LexerErrors(Diagnostics& d) : diags_(d) {}
    void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token*, size_t line, size_t pos,
                     const std::string&, std::exception_ptr) override {
        auto* lexer = static_cast<antlr4::Lexer*>(recognizer);
        int l = static_cast<int>(line), c = static_cast<int>(pos) + 1;
        // A run of bad characters is one error.
        if (l == last_line_ && c == last_col_ + 1) {
            last_col_ = c;
            return;
        }
        last_line_ = l;
        last_col_ = c;
        std::string bad;
        auto* input = lexer->getInputStream();
        std::size_t at = lexer->getCharIndex();
        if (at < input->size())
            bad = input->getText(antlr4::misc::Interval(at, at));
        diags_.error({l, c}, fmt::format("invalid character '{}'", show(bad)));
        if (diags_.limit_reached())
            throw ErrorLimit{};
    }

private:
    Diagnostics& diags_;
    int last_line_ = -1, last_col_ = -1;
};

class ParserErrors : public antlr4::BaseErrorListener {
public:
    explicit ParserErrors(Diagnostics& d) : diags_(d) {}
    void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* tok, size_t line, size_t pos,
                     const std::string& msg, std::exception_ptr) override {
        auto* parser = static_cast<antlr4::Parser*>(recognizer);
        std::string expected = expected_tokens(parser);
        std::string found = tok == nullptr || tok->getType() == antlr4::Token::EOF
                                ? std::string("end of file")
                                : "'" + show(tok->getText()) + "'";
        SourceLoc loc{static_cast<int>(line), static_cast<int>(pos) + 1};
        std::string text;
        if (msg.rfind("missing ", 0) == 0) {
            // Clang puts "expected ';'" right after the previous token, where it is missing.
            if (antlr4::Token* prev = parser->getTokenStream()->LT(-1);
                prev != nullptr && prev->getText().find('\n') == std::string::npos) {
                loc = {static_cast<int>(prev->getLine()),
                       static_cast<int>(prev->getCharPositionInLine()) + 1 +
                           code_points(prev->getText())};
            }
            text = fmt::format("expected {}", expected.empty() ? "more input" : expected);
        } else if (expected.empty()) {
            text = fmt::format("unexpected {}", found);
        } else {
            text = fmt::format("expected {} before {}", expected, found);
        }
        diags_.error(loc, text);
        if (diags_.limit_reached())
            throw ErrorLimit{};
    }

private:
    static std::string expected_tokens(antlr4::Parser* parser) {
        antlr4::misc::IntervalSet set;
        try {
            set = parser->getExpectedTokens();
        } catch (...) {
            return {};
        }
        std::vector<std::string> names;
        for (ssize_t t : set.toList()) {
            if (static_cast<size_t>(t) == antlr4::Token::EOF)
                names.push_back("end of file");
            else
                names.push_back(display(parser->getVocabulary(), static_cast<size_t>(t)));
        }
        if (names.empty() || names.size() > 6)
            return {};
        std::string out;
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i)
                out += i + 1 == names.size() ? " or " : ", ";
            out += names[i];
        }
        return out;
    }
    static std::string display(const antlr4::dfa::Vocabulary& v, size_t t) {
        switch (t) {
        case P::ID:
            return "an identifier";
        case P::INT:
            return "an integer";
        case P::OR:
            return "'|'";
        case P::SEQ:
            return "'|>'";
        default:
            return v.getDisplayName(t);
        }
    }
    Diagnostics& diags_;
};

ast::Ident ident(antlr4::tree::TerminalNode* n) {
    return {n->getText(), loc_of(n)};
}

std::vector<ast::Ident> idents(const std::vector<antlr4::tree::TerminalNode*>& ns) {
    std::vector<ast::Ident> out;
    for (auto* n : ns)
        out.push_back(ident(n));
    return out;
}

std::vector<ast::Ident> id_list(P::IdListContext* c) {
    return c == nullptr ? std::vector<ast::Ident>{} : idents(c->ID());
}

// Parse tree -> AST. Only called on a tree without syntax errors.
struct Builder {
    Diagnostics& diags;

    std::unique_ptr<ast::Disc> disc(P::DiscContext* c) {
        auto seqs = c->seq();
        auto ors = c->OR();
        std::unique_ptr<ast::Disc> acc = seq(seqs[0]);
        for (std::size_t i = 1; i < seqs.size(); ++i) {
            auto n = std::make_unique<ast::Disc>();
            n->kind = ast::Disc::Kind::disj;
            n->loc = loc_of(ors[i - 1]);
            n->lhs = std::move(acc);
            n->rhs = seq(seqs[i]);
            acc = std::move(n);
        }
        return acc;
    }

    std::unique_ptr<ast::Disc> seq(P::SeqContext* c) {
        auto atoms = c->atom();
        auto labels = c->label();
        auto ops = c->SEQ();
        std::unique_ptr<ast::Disc> acc = atom(atoms[0]);
        for (std::size_t i = 1; i < atoms.size(); ++i) {
            auto n = std::make_unique<ast::Disc>();
            n->kind = ast::Disc::Kind::seq;
            n->loc = loc_of(ops[i - 1]);
            n->label = label(labels[i - 1]);
            n->lhs = std::move(acc);
            n->rhs = atom(atoms[i]);
            acc = std::move(n);
        }
        return acc;
    }

    std::unique_ptr<ast::Disc> atom(P::AtomContext* c) {
        auto n = std::make_unique<ast::Disc>();
        n->loc = loc_of(c);
        if (auto* ex = dynamic_cast<P::ExAtomContext*>(c)) {
            n->kind = ast::Disc::Kind::ex;
            n->threads = id_list(ex->idList());
        } else if (auto* each = dynamic_cast<P::EachAtomContext*>(c)) {
            n->kind = ast::Disc::Kind::each;
            n->name = ident(each->ID());
        } else if (auto* rs = dynamic_cast<P::RsAtomContext*>(c)) {
            n->kind = ast::Disc::Kind::rs;
            n->threads = id_list(rs->idList());
        } else if (auto* lock = dynamic_cast<P::LockAtomContext*>(c)) {
            n->kind = ast::Disc::Kind::lock;
            n->name = ident(lock->ID());
            n->threads = id_list(lock->idList());
        } else if (auto* loop = dynamic_cast<P::LoopAtomContext*>(c)) {
            n->kind = ast::Disc::Kind::loop;
            n->lhs = disc(loop->disc());
            n->label = label(loop->label());
        } else if (auto* paren = dynamic_cast<P::ParenAtomContext*>(c)) {
            return disc(paren->disc());
        } else {
            auto* name = static_cast<P::NameAtomContext*>(c);
            n->kind = ast::Disc::Kind::name;
            n->name = ident(name->ID());
        }
        return n;
    }

    ast::Label label(P::LabelContext* c) {
        ast::Label l;
        l.loc = loc_of(c);
        if (auto* named = dynamic_cast<P::CaretNamedContext*>(c)) {
            l.kind = ast::Label::Kind::named;
            l.name = ident(named->ID());
        } else if (dynamic_cast<P::CaretForkContext*>(c)) {
            l.kind = ast::Label::Kind::bare_fork;
        } else if (dynamic_cast<P::CaretJoinContext*>(c)) {
            l.kind = ast::Label::Kind::bare_join;
        } else if (auto* value = dynamic_cast<P::CaretValueContext*>(c)) {
            value_label(value->valueMech(), l);
        } else {
            auto* mech = static_cast<P::BraceLabelContext*>(c)->mech();
            l.loc = loc_of(mech);
            if (auto* nm = dynamic_cast<P::NamedMechContext*>(mech)) {
                l.kind = ast::Label::Kind::named;
                l.name = ident(nm->ID());
            } else if (auto* vm = dynamic_cast<P::ValueMechAltContext*>(mech)) {
                value_label(vm->valueMech(), l);
            } else if (auto* fk = dynamic_cast<P::ForkMechContext*>(mech)) {
                l.kind = ast::Label::Kind::fork;
                l.thread = ident(fk->ID());
                l.threads = id_list(fk->idList());
            } else {
                auto* jn = static_cast<P::JoinMechContext*>(mech);
                l.kind = ast::Label::Kind::join;
                l.thread = ident(jn->ID());
                l.threads = id_list(jn->idList());
            }
        }
        return l;
    }

    // v == K: K keeps its sign and digits as written, located at its first character.
    static void value_label(P::ValueMechContext* c, ast::Label& l) {
        l.kind = ast::Label::Kind::value;
        l.name = ident(c->ID());
        l.value = {c->INT()->getText(), loc_of(c->INT())};
        for (antlr4::tree::ParseTree* child : c->children)
            if (child->getText() == "-") {
                l.value.name.insert(0, "-");
                l.value.loc = loc_of(static_cast<antlr4::tree::TerminalNode*>(child));
            }
    }

    ast::Spec spec(P::SpecContext* c) {
        ast::Spec out;
        for (auto* item : c->item()) {
            ast::Decl d;
            d.loc = loc_of(item);
            if (auto* t = dynamic_cast<P::ThreadsDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::threads;
                d.names = idents(t->ID());
            } else if (auto* l = dynamic_cast<P::LockDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::lock;
                d.names = idents(l->ID());
            } else if (auto* v = dynamic_cast<P::VolatileDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::volatile_;
                d.names = idents(v->ID());
            } else if (auto* b = dynamic_cast<P::BarrierDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::barrier;
                auto ids = idents(b->ID());
                d.names.push_back(ids.front());
                d.barrier_threads.assign(ids.begin() + 1, ids.end());
            } else if (auto* q = dynamic_cast<P::QueueDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::queue;
                d.names = idents(q->ID());
            } else if (auto* cv = dynamic_cast<P::CondDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::cond;
                d.names = idents(cv->ID());
            } else if (auto* g = dynamic_cast<P::GroupDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::group;
                d.names.push_back(ident(g->ID()));
                d.members = id_list(g->idList());
            } else if (auto* dd = dynamic_cast<P::DisciplineDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::discipline;
                d.names.push_back(ident(dd->ID()));
                d.disc = disc(dd->disc());
            } else if (auto* var = dynamic_cast<P::VarDeclContext*>(item)) {
                d.kind = ast::Decl::Kind::var;
                d.names = idents(var->ID());
                if (var->disc() != nullptr)
                    d.disc = disc(var->disc());
            } else {
                auto* prog = static_cast<P::ProgramDeclContext*>(item)->program();
                out.programs.push_back(
                    {ident(prog->ID()), loc_of(prog), build_program(prog, diags)});
                continue;
            }
            out.decls.push_back(std::move(d));
        }
        return out;
    }
};

bool is_open(const std::string& t) {
    return t == "(" || t == "[" || t == "{";
}
bool is_close(const std::string& t) {
    return t == ")" || t == "]" || t == "}";
}

// Lexical checks ANTLR's rules cannot express: unterminated comments, and nesting deep enough
// to exhaust the recursive-descent parser's stack (brackets, and chains of prefix operators).
void check_tokens(const std::vector<antlr4::Token*>& tokens, Diagnostics& diags) {
    int depth = 0, unary_run = 0, since_semicolon = 0;
    for (antlr4::Token* t : tokens) {
        if (t->getType() == P::BLOCK_COMMENT) {
            std::string text = t->getText();
            if (text.size() < 4 || text.compare(text.size() - 2, 2, "*/") != 0)
                diags.error(loc_of(t), "unterminated /* comment");
            continue;
        }
        const std::string text = t->getText();
        // Operator chains build ASTs as deep as they are long; bound them like brackets.
        since_semicolon = text == ";" || text == "{" || text == "}" ? 0 : since_semicolon + 1;
        if (since_semicolon > max_tokens_per_item) {
            diags.error(loc_of(t), fmt::format("declaration or statement is too long (more than "
                                               "{} tokens)",
                                               max_tokens_per_item));
            return;
        }
        if (is_open(text))
            ++depth;
        else if (is_close(text) && depth > 0)
            --depth;
        unary_run = text == "!" || text == "-" ? unary_run + 1 : 0;
        if (depth + unary_run > max_nesting_depth) {
            diags.error(loc_of(t), fmt::format("nesting is too deep (more than {} levels)",
                                               max_nesting_depth));
            return;
        }
    }
}

ast::Spec parse_impl(const SourceFile& file, Diagnostics& diags) {
    std::string text = sanitize_utf8(file.text(), diags);
    antlr4::ANTLRInputStream input(text);
    sfg_gen::SfgLexer lexer(&input);
    LexerErrors lexer_errors(diags);
    lexer.removeErrorListeners();
    lexer.addErrorListener(&lexer_errors);
    antlr4::CommonTokenStream tokens(&lexer);
    tokens.fill();
    check_tokens(tokens.getTokens(), diags);
    if (diags.has_errors())
        return {};

    P parser(&tokens);
    ParserErrors parser_errors(diags);
    parser.removeErrorListeners();
    parser.addErrorListener(&parser_errors);
    P::SpecContext* tree = parser.spec();
    if (diags.has_errors())
        return {};
    return Builder{diags}.spec(tree);
}

} // namespace

ast::Spec parse_spec(const SourceFile& file, Diagnostics& diags) {
    ast::Spec result;
    std::exception_ptr failure;
    run_with_big_stack([&] {
        try {
            result = parse_impl(file, diags);
        } catch (const ErrorLimit&) {
            result = {};
        } catch (...) {
            failure = std::current_exception();
        }
    });
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const std::exception& e) {
            diags.error({1, 1}, fmt::format("internal parser error: {}", e.what()));
        } catch (...) {
            diags.error({1, 1}, "internal parser error");
        }
    }
    return result;
}

} // namespace sfg
