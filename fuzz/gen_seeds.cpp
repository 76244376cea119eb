// gen_seeds SOURCE_DIR OUT_DIR: the seed corpora of the harnesses, one directory each under
// OUT_DIR (spec, program, trace_text, trace_binary, slp), rebuilt from scratch:
// - collected from the repository: every .sfg and .std under specs/, docs/examples/ and tests/,
//   bench/realistic.sfg, and the ```sfg blocks of docs/*.md;
// - generated: random programs and traces (the unit tests' generators), every text trace
//   converted to binary and compressed to SLPs (Sequitur and Re-Pair), and hostile shapes, small
//   inputs that denote huge work (doubling named disciplines, a lock or a barrier over many
//   threads, thousands of threads in a trace, odd bytes in names), which mutation alone rarely
//   builds.
#include "random_program.hpp"
#include "random_trace.hpp"
#include "sfg/runtime/registry/compress_trace_file.hpp"

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

fs::path out_root;
int written = 0;

void put(const std::string& dir, const std::string& name, const std::string& bytes) {
    const fs::path path = out_root / dir / name;
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    if (!out) {
        std::cerr << "gen_seeds: cannot write " << path << '\n';
        std::exit(1);
    }
    ++written;
}

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// "specs/thesis/bank.sfg" -> "specs_thesis_bank.sfg": one flat directory per harness.
std::string flat(const fs::path& rel) {
    std::string s = rel.generic_string();
    for (char& c : s)
        if (c == '/')
            c = '_';
    return s;
}

bool has_program(const std::string& text) {
    for (std::size_t at = text.find("program"); at != std::string::npos;
         at = text.find("program", at + 1))
        if ((at == 0 || text[at - 1] == '\n' || text[at - 1] == ' ') && at + 7 < text.size() &&
            (text[at + 7] == ' ' || text[at + 7] == '\t'))
            return true;
    return false;
}

void collect_spec(const std::string& name, const std::string& text) {
    put("spec", name, text);
    if (has_program(text))
        put("program", name, text);
}

void collect(const fs::path& src) {
    for (const char* dir : {"specs", "docs/examples", "tests"}) {
        if (!fs::is_directory(src / dir))
            continue;
        for (const fs::directory_entry& e : fs::recursive_directory_iterator(src / dir)) {
            if (!e.is_regular_file())
                continue;
            const std::string ext = e.path().extension().string();
            const fs::path rel = fs::relative(e.path(), src);
            if (ext == ".sfg")
                collect_spec(flat(rel), slurp(e.path()));
            else if (ext == ".std")
                put("trace_text", flat(rel), slurp(e.path()));
        }
    }
    if (fs::exists(src / "bench/realistic.sfg"))
        collect_spec("bench_realistic.sfg", slurp(src / "bench/realistic.sfg"));
    // The examples in the documentation.
    for (const fs::directory_entry& e : fs::directory_iterator(src / "docs")) {
        if (e.path().extension() != ".md")
            continue;
        const std::string text = slurp(e.path());
        int n = 0;
        for (std::size_t at = text.find("```sfg\n"); at != std::string::npos;
             at = text.find("```sfg\n", at + 1)) {
            const std::size_t from = at + 7, to = text.find("```", from);
            if (to == std::string::npos)
                break;
            collect_spec("docs_" + e.path().stem().string() + "_" + std::to_string(++n) + ".sfg",
                         text.substr(from, to - from));
        }
    }
}

std::string list(const std::string& prefix, int from, int to, const std::string& sep = ", ") {
    std::string s;
    for (int i = from; i < to; ++i)
        s += (i > from ? sep : "") + prefix + std::to_string(i);
    return s;
}

std::string threads(int n) {
    return "threads " + list("t", 0, n) + ";\n";
}

// Specs whose text is small and whose graphs, nets or markings are not.
void hostile_specs() {
    for (const int n : {12, 20, 30}) {
        // d_i = d_{i-1} ⊔ d_{i-1}: 2^n copies of EX(t) before the edge set merges them.
        std::string s = "threads t;\nlock m;\ndiscipline d0 = EX(t);\n";
        for (int i = 1; i <= n; ++i)
            s += "discipline d" + std::to_string(i) + " = d" + std::to_string(i - 1) + " | d" +
                 std::to_string(i - 1) + ";\n";
        put("spec", "hostile_doubling_or_" + std::to_string(n) + ".sfg",
            s + "var x : [d" + std::to_string(n) + "]^m;\n");
        // s_i = s_{i-1} ▷^m s_{i-1}: 2^n modes in a chain.
        s = "threads t0, t1;\nlock m;\ndiscipline s0 = EX(t0) | EX(t1);\n";
        for (int i = 1; i <= n; ++i)
            s += "discipline s" + std::to_string(i) + " = s" + std::to_string(i - 1) + " |> ^m s" +
                 std::to_string(i - 1) + ";\n";
        put("spec", "hostile_doubling_seq_" + std::to_string(n) + ".sfg",
            s + "var x : s" + std::to_string(n) + ";\n");
    }
    // A lock shared by k threads: [·] connects every out-mode to every in-mode (k^2 edges).
    for (const int k : {64, 512, 3000}) {
        put("spec", "hostile_lock_threads_" + std::to_string(k) + ".sfg",
            threads(k) + "lock m;\nvar x : [" + list("EX(t", 0, k, ") | ") + ")]^m;\n");
    }
    // A barrier over k threads: 2^k reachable markings for verify_net.
    for (const int k : {10, 16, 24, 64}) {
        put("spec", "hostile_barrier_threads_" + std::to_string(k) + ".sfg",
            threads(k) + "barrier b(" + list("t", 0, k) + ");\nvar x : [RS(" + list("t", 0, k) +
                ") |> ^b EX(t0)]^b;\n");
    }
    // A group of k threads: EX(each W) is k modes and [·] k^2 edges; RS(W) and LOCK(m: W) one
    // mode of k threads, which a barrier's fork / join edges reach.
    for (const int k : {64, 3000}) {
        put("spec", "hostile_group_threads_" + std::to_string(k) + ".sfg",
            threads(k) + "lock m;\nqueue q;\ngroup W = " + list("t", 0, k) +
                ";\nbarrier b(W);\nvar x : [EX(each W)]^q;\nvar y : [RS(W) |> ^b LOCK(m: W)]^b;\n");
    }
    // fork/join over many threads, bare and explicit.
    for (const int k : {100, 1000}) {
        put("spec", "hostile_fork_threads_" + std::to_string(k) + ".sfg",
            threads(k + 1) + "var x : EX(t0) |> ^fork RS(" + list("t", 1, k + 1) +
                ") |> ^join EX(t0);\nvar y : EX(t0) |> {fork(t0 -> " + list("t", 1, k + 1) +
                ")} [" + list("EX(t", 1, k + 1, ") | ") + ")]^fork;\n");
    }
    // Long chains: a left-deep tree as deep as the chain.
    for (const int n : {1000, 20000}) {
        put(
            "spec", "hostile_chain_" + std::to_string(n) + ".sfg",
            "threads t0, t1;\nlock m;\nvar x : EX(t0)" + std::string() +
                [&] {
                    std::string s;
                    for (int i = 0; i < n; ++i)
                        s += i % 2 ? " |> ^m EX(t0)" : " |> ^m EX(t1)";
                    return s;
                }() +
                ";\n");
        std::string s = "threads t0;\nvar x : EX(t0)";
        for (int i = 0; i < n; ++i)
            s += " | EX(t0)";
        put("spec", "hostile_or_chain_" + std::to_string(n) + ".sfg", s + ";\n");
    }
    // Nesting at and beyond the parser's depth limit (256).
    for (const int depth : {250, 257, 5000}) {
        const std::string d = std::to_string(depth);
        put("spec", "hostile_parens_" + d + ".sfg",
            "threads t0;\nvar x : " + std::string(depth, '(') + "EX(t0)" + std::string(depth, ')') +
                ";\n");
        std::string loops = "EX(t0)";
        for (int i = 0; i < depth; ++i)
            loops = "[" + loops + "]^m";
        put("spec", "hostile_loops_" + d + ".sfg",
            "threads t0;\nlock m;\nvar x : " + loops + ";\n");
    }
    // Nested loops over disjunctions of named copies: many in/out modes at every level.
    {
        std::string s = "threads t0, t1, t2;\nlock m, n;\ndiscipline a0 = EX(t0) | EX(t1) | "
                        "RS(t1, t2);\n";
        for (int i = 1; i <= 8; ++i)
            s += "discipline a" + std::to_string(i) + " = [a" + std::to_string(i - 1) +
                 "]^m |> ^n [a" + std::to_string(i - 1) + " | a" + std::to_string(i - 1) + "]^n;\n";
        put("spec", "hostile_nested_loops.sfg", s + "var x : [a8]^m;\n");
    }
    // Many variables over one discipline; many declarations; many errors.
    {
        std::string s = threads(8) + "lock m;\ndiscipline tl = " + list("EX(t", 0, 8, ") | ") +
                        ");\nvar " + list("v", 0, 5000) + " : [tl]^m;\n";
        put("spec", "hostile_many_vars.sfg", s);
        put("spec", "hostile_many_threads.sfg", threads(20000) + "var x : EX(t19999);\n");
        std::string errors;
        for (int i = 0; i < 3000; ++i)
            errors += "var x" + std::to_string(i) + " : [EX(nope" + std::to_string(i) +
                      ")]^zz ;; |> ^ ] \n";
        put("spec", "hostile_many_errors.sfg", errors);
    }
    // Odd bytes: NUL, invalid UTF-8, both operator spellings, an unterminated comment, a long
    // identifier.
    put("spec", "hostile_bytes.sfg",
        "threads t0, t1;\nlock m;\nvar x : [EX(t0) \xe2\x8a\x94 EX(t1)]^m \xe2\x96\xb7^m EX(t0);\n"
        "var \xff\xfe : EX(t0);\n" +
            std::string("\0\0", 2) + "var y;\n/* " + std::string(5000, '*'));
    put("spec", "hostile_long_name.sfg",
        "threads " + std::string(65536, 'a') + ";\nvar x : EX(" + std::string(65536, 'a') + ");\n");
}

// Programs whose checking is bounded only by the checker's own limits.
void hostile_programs() {
    const std::string decl = "threads t0, t1, t2;\nlock m;\nvolatile v;\nbarrier b(t0, t1, t2);\n"
                             "var x, y : [EX(t0) | EX(t1) | EX(t2)]^m;\n";
    put("program", "hostile_local_loop.sfg",
        decl + "program p {\n  thread t0 { while (1) { skip; } }\n  thread t1 { let i = 0; "
               "while (i >= 0) { i = i + 1; } }\n  thread t2 { acq m; x = 1; rel m; }\n}\n");
    put("program", "hostile_repeat.sfg",
        decl + "program p {\n  thread t0 { repeat 1000000 { repeat 1000000 { skip; } } }\n"
               "  thread t1 { repeat 1000000 { acq m; x = x + 1; rel m; } }\n}\n");
    put("program", "hostile_await.sfg",
        decl + "program p {\n  thread t0 { await x == 1; }\n  thread t1 { await v == 2; }\n"
               "  thread t2 { barrier b; barrier b; }\n}\n");
    put("program", "hostile_arith.sfg",
        decl + "program p {\n  init x = -9223372036854775807;\n  thread t0 { let a = x - 1; "
               "let n = -a; let c = a / -1; let d = a % -1; "
               "let e = 9223372036854775807 + 1; let f = -9223372036854775807 - 1; "
               "assert a * a * a != 0; }\n}\n");
    {
        std::string e = "1";
        for (int i = 0; i < 250; ++i)
            e = "(" + e + " + x)";
        put("program", "hostile_deep_expr.sfg",
            decl + "program p {\n  thread t0 { let a = " + e + "; }\n}\n");
    }
    {
        // Many threads, each a few visible steps: explosion cut by max_executions.
        const int k = 12;
        std::string s =
            threads(k) + "lock m;\nvar x : [" + list("EX(t", 0, k, ") | ") + ")]^m;\nprogram p {\n";
        for (int i = 0; i < k; ++i)
            s += "  thread t" + std::to_string(i) + " { acq m; x = x + 1; rel m; read x; }\n";
        put("program", "hostile_many_threads.sfg", s + "}\n");
    }
    {
        // A fork tree and joins back.
        const int k = 30;
        std::string s = threads(k) + "var x;\nprogram p {\n";
        for (int i = 0; i < k; ++i) {
            s += "  thread t" + std::to_string(i) + " {";
            if (2 * i + 2 < k)
                s += " fork t" + std::to_string(2 * i + 1) + ", t" + std::to_string(2 * i + 2) +
                     "; x = " + std::to_string(i) + "; join t" + std::to_string(2 * i + 1) + ", t" +
                     std::to_string(2 * i + 2) + ";";
            else
                s += " write x;";
            s += " }\n";
        }
        put("program", "hostile_fork_tree.sfg", s + "}\n");
    }
    for (int i = 0; i < 40; ++i)
        put("program", "random_" + std::to_string(i) + ".sfg",
            sfg::checker::test::random_program(static_cast<std::uint64_t>(i)));
    // Hand-offs through queues (enq/deq, blocked deqs, FIFO deadlocks), and a queue filled in a
    // loop that no Spin channel can hold (docs/promela.md).
    for (int i = 0; i < 20; ++i)
        put("program", "queue_" + std::to_string(i) + ".sfg",
            sfg::checker::test::queue_program(static_cast<std::uint64_t>(i)));
    put("program", "hostile_queue_loop.sfg",
        "threads t0, t1;\nqueue q;\nvar x : [EX(t0) | EX(t1)]^q;\nprogram p {\n"
        "  thread t0 { while (1) { enq q x; } }\n  thread t1 { repeat 1000 { deq q x; } }\n}\n");
}

// The names of the harnesses' enforced spec (trace_harness.hpp), so the enforcer does work.
std::string renamed(std::string s) {
    for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{{"(x0)", "(x)"},
                                                                            {"(x1)", "(y)"},
                                                                            {"(x2)", "(z)"},
                                                                            {"(m0)", "(m)"},
                                                                            {"(v0)", "(v)"},
                                                                            {"(b0)", "(b)"}})
        for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at))
            s.replace(at, from.size(), to);
    for (char& c : s)
        if (c == 'T')
            c = 't';
    return s;
}

void traces() {
    std::mt19937_64 rng(1);
    for (int i = 0; i < 30; ++i) {
        sfg::testing::RandomTraceOptions o;
        o.threads = 3;
        o.vars = 3;
        o.locks = 1;
        o.volatiles = 1;
        o.barriers = 1;
        o.events = 20 + 10 * (i % 5);
        o.guarded = i % 2 ? 80 : 0;
        put("trace_text", "random_" + std::to_string(i) + ".std",
            renamed(sfg::testing::random_trace(rng, o)));
    }
    // With queue events (thesis §5.1), their own stream: the traces above stay as they were. They
    // are compressed into SLP seeds too (slps()).
    std::mt19937_64 queue_rng(5);
    for (int i = 0; i < 10; ++i) {
        sfg::testing::RandomTraceOptions o;
        o.threads = 3;
        o.vars = 2;
        o.locks = 1;
        o.volatiles = 1;
        o.barriers = 0;
        o.events = 20 + 10 * (i % 5);
        o.queues = 30;
        put("trace_text", "random_queue_" + std::to_string(i) + ".std",
            renamed(sfg::testing::random_trace(queue_rng, o)));
    }
    // The enforced spec's disciplines followed (and broken at the end).
    put("trace_text", "enforced.std",
        "t0|w(f)\nt0|w(g)\nt0|fork(t1,t2)\nt1|r(f)\nt2|r(f)\nt1|w(g)\n"
        "t0|acq(m)\nt0|w(x)\nt0|rel(m)\nt1|acq(m)\nt1|r(x)\nt1|rel(m)\n"
        "t0|w(y)\nt0|vw(v)\nt1|vr(v)\nt1|r(y)\nt1|vw(v)\nt2|vr(v)\nt2|w(y)\nt2|vw(v)\nt0|vr(v)\n"
        "t0|w(y)\nt0|r(z)\nt1|r(z)\nt2|r(z)\nt0|benter(b)\nt1|benter(b)\nt2|benter(b)\n"
        "t0|bexit(b)\nt1|bexit(b)\nt2|bexit(b)\nt0|w(z)\nt0|join(t1,t2)\nt0|w(f)\nt0|w(g)\n"
        "t0|begin(0)\nt0|w(x2)|G.java:1\nt0|end(0)\nt0|r(h)|a|b|c\n");

    // Hostile shapes.
    auto lines = [](int n, const std::function<std::string(int)>& line) {
        std::string s;
        for (int i = 0; i < n; ++i)
            s += line(i) + "\n";
        return s;
    };
    for (const int n : {3000, 30000}) {
        const std::string k = std::to_string(n);
        // n root threads touching one variable under one lock: vector clocks of n entries.
        put("trace_text", "hostile_threads_lock_" + k + ".std", lines(n, [](int i) {
                const std::string t = "T" + std::to_string(i);
                return t + "|acq(m)\n" + t + "|w(x)\n" + t + "|rel(m)";
            }));
        // n root threads reading, then one write: read vector clocks.
        put("trace_text", "hostile_threads_read_" + k + ".std",
            lines(n, [](int i) { return "T" + std::to_string(i) + "|r(x)"; }) + "T0|w(x)\n");
        // One fork of n threads, one join of them.
        put("trace_text", "hostile_fork_" + k + ".std",
            "t0|fork(" + list("u", 0, n, ",") + ")\n" + "u1|w(x)\nt0|join(" + list("u", 0, n, ",") +
                ")\nt0|r(x)\n");
        // n nested locks, then n accesses holding them all.
        put("trace_text", "hostile_locks_" + k + ".std",
            lines(n, [](int i) { return "t0|acq(m" + std::to_string(i) + ")"; }) +
                lines(n / 10, [](int i) { return "t" + std::to_string(i % 2) + "|w(x)"; }));
        // n variables, each accessed by two threads under a barrier.
        put("trace_text", "hostile_vars_" + k + ".std",
            lines(n, [](int i) { return "t0|w(x" + std::to_string(i) + ")"; }) +
                "t0|benter(b)\nt1|benter(b)\nt0|bexit(b)\nt1|bexit(b)\n" +
                lines(n, [](int i) { return "t1|w(x" + std::to_string(i) + ")"; }));
    }
    // Names with bytes 0x80-0xFF (not UTF-8), long names and lines, and everything the text
    // format ignores or trims.
    put("trace_text", "hostile_names.std",
        "T\xff|w(x\xfe)|loc\xff\nU\xc3|w(x\xfe)\n# comment\n\n  \tV | r ( x\xfe ) | a | b \r\n" +
            std::string(20000, 'n') + "|w(" + std::string(20000, 'x') + ")|" +
            std::string(20000, 'l') + "\n");
    put("trace_text", "hostile_rapid.std",
        "T0|begin(0)\nT0|end(0)\nT0|begin\nT0|end\nT0|fork(T1)\nT1|begin(1)\nT0|join(T1)\n"
        "T0|join(T9)\nT0|fork(T2,T3)\nT2|w(x)\nT0|join(T3,T2)\n");
}

// Binary traces: the text ones converted (a prefix of the events when the text is in error),
// and hand-made records.
void binary_traces() {
    const std::string magic = "SFGTRC1\n";
    for (const fs::directory_entry& e : fs::directory_iterator(out_root / "trace_text")) {
        struct Sink : sfg::Analysis {
            std::vector<sfg::Event> events;
            void on_event(const sfg::Event& ev, const sfg::Symbols&) override {
                events.push_back(ev);
            }
        } sink;
        sfg::Symbols syms;
        const std::string text = slurp(e.path());
        sfg::read_trace_text(text, "seed", syms, sink);
        std::ostringstream out;
        sfg::BinaryTraceWriter writer(out);
        for (const sfg::Event& ev : sink.events)
            writer.on_event(ev, syms);
        writer.finish(syms);
        put("trace_binary", e.path().stem().string() + ".sfgt", out.str());
    }
    auto def = [](int kind, const std::string& name) {
        return std::string(1, static_cast<char>(0x40 + kind)) + static_cast<char>(name.size()) +
               name;
    };
    // docs/traces.md: a fork of B, then writes of x by A and by B.
    put("trace_binary", "docs_race.sfgt",
        magic + def(0, "A") + def(0, "B") + def(1, "x") +
            std::string("\x08\x00\x01\x01\x01\x00\x00\x01\x01\x00", 10));
    // Empty names, names with a newline, a control character, a blank at an end.
    put("trace_binary", "hostile_empty_name.sfgt",
        magic + def(0, "") + def(1, "") + std::string("\x01\x00\x00", 3));
    put("trace_binary", "hostile_newline_name.sfgt",
        magic + def(0, "T\n1|w(y)") + def(1, "x\ny") + def(5, "a\nb") +
            std::string("\x81\x00\x00\x00", 4));
    put("trace_binary", "hostile_control_name.sfgt",
        magic + def(0, std::string("T\x01\x7f", 3)) + def(1, " x ") + def(5, "\t") +
            std::string("\x81\x00\x00\x00", 4));
    put("trace_binary", "hostile_separator_name.sfgt",
        magic + def(0, "T|w(x)") + def(1, "x,y") + def(2, "m)") + std::string("\x02\x00\x00", 3));
    // Varints: overlong, the largest id, a fork of 2^32-1 threads with nothing after it.
    put("trace_binary", "hostile_varints.sfgt",
        magic + def(0, "A") + def(1, "x") + std::string("\x01\x80\x80\x80\x80\x80\x00\x00", 8));
    put("trace_binary", "hostile_big_ids.sfgt",
        magic + def(0, "A") + std::string("\x01\x00\xff\xff\xff\xff\x0f", 7));
    put("trace_binary", "hostile_huge_fork.sfgt",
        magic + def(0, "A") + std::string("\x08\x00\xff\xff\xff\xff\x0f", 7));
    // A name whose length runs past the end.
    put("trace_binary", "hostile_long_name.sfgt", magic + std::string("\x40\xff\xff\xff\x7f", 5));
    // Many definitions of one name.
    {
        std::string s = magic;
        for (int i = 0; i < 20000; ++i)
            s += def(0, "T");
        put("trace_binary", "hostile_redefined.sfgt", s + std::string("\x01\x00\x00", 3));
    }
}

// SLPs (docs/compressed.md): the well-formed text traces compressed by both algorithms, and
// hand-made grammars: exponential ones (TV4 of the SLP paper: 6 * 2^40 events), an ill-formed
// one, bad rule references.
void slps() {
    for (const fs::directory_entry& e : fs::directory_iterator(out_root / "trace_text")) {
        for (const auto algorithm : {sfg::SlpAlgorithm::sequitur, sfg::SlpAlgorithm::repair}) {
            sfg::Symbols syms;
            sfg::Slp slp;
            if (e.file_size() > 200000 ||
                !sfg::compress_trace_file(e.path().string(), algorithm, syms, slp).ok())
                continue;
            std::ostringstream out;
            sfg::write_slp(out, slp, syms);
            put("slp",
                e.path().stem().string() +
                    (algorithm == sfg::SlpAlgorithm::repair ? ".repair.slp" : ".slp"),
                out.str());
        }
    }
    // TV4: threads 1, 2, variable x, lock l; rule 0 = A40 tail, rule k = rule k+1 twice.
    for (const char* tail : {"", "\x0c", "\x08"}) {
        std::string b("SFGSLP1\n\x02\x01"
                      "1"
                      "\x01"
                      "2\x01\x01x\x01\x01l\x00\x00\x00\x00",
                      23);
        b += std::string("\x07\x02\x00\x00\x01\x00\x00\x03\x00\x00\x02\x01\x00\x01\x01\x00"
                         "\x03\x01\x00\x00\x00\x00",
                         22);
        b += static_cast<char>(44);
        b += *tail ? std::string{'\x02', '\x03', *tail} : std::string("\x01\x03", 2);
        for (int k = 1; k <= 40; ++k)
            b += std::string{'\x02', static_cast<char>(2 * (k + 1) + 1),
                             static_cast<char>(2 * (k + 1) + 1)};
        b += std::string{'\x02', static_cast<char>(2 * 42 + 1), static_cast<char>(2 * 43 + 1)};
        b += std::string("\x03\x00\x02\x04\x03\x06\x08\x0a\x00", 9);
        put("slp",
            std::string("hostile_tv4") +
                (*tail == '\x0c' ? "_read"
                 : *tail         ? "_write"
                                 : "") +
                ".slp",
            b);
    }
    // Rules that refer to themselves, to no rule, to no terminal.
    const std::string head("SFGSLP1\n\x01\x01T\x01\x01x\x00\x00\x00\x00\x00\x01\x01\x00\x00", 23);
    put("slp", "hostile_cycle.slp", head + std::string("\x01\x01\x01\x00", 4));
    put("slp", "hostile_rule_range.slp", head + std::string("\x01\x01\x07\x00", 4));
    put("slp", "hostile_terminal_range.slp", head + std::string("\x01\x01\x04\x00", 4));
    put("slp", "hostile_huge_counts.slp", head + std::string("\xff\xff\xff\xff\x0f", 5));
    // Queue events (docs/compressed.md: the queue names' record 0x46 before the terminals):
    // T enq(q,x) T deq(q,x) twice (one rule of two), then a deq too many.
    const std::string queues("SFGSLP1\n\x01\x01T\x01\x01x\x00\x00\x00\x00\x00\x02\x46\x01\x01q"
                             "\x0e\x00\x00\x00\x0f\x00\x00\x00",
                             32);
    put("slp", "queue_twice.slp", queues + std::string("\x02\x02\x03\x03\x02\x00\x02\x00", 8));
    put("slp", "queue_deq_too_many.slp",
        queues + std::string("\x02\x03\x03\x03\x02\x02\x00\x02\x00", 9));
    put("slp", "queue_no_record.slp",
        std::string("SFGSLP1\n\x01\x01T\x01\x01x\x00\x00\x00\x00\x00\x01\x0e\x00\x00\x00"
                    "\x01\x01\x00\x00",
                    28));
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: gen_seeds SOURCE_DIR OUT_DIR\n";
        return 2;
    }
    out_root = argv[2];
    fs::remove_all(out_root);
    for (const char* d : {"spec", "program", "trace_text", "trace_binary", "slp"})
        fs::create_directories(out_root / d);
    collect(argv[1]);
    hostile_specs();
    hostile_programs();
    traces();
    binary_traces();
    slps();
    std::cout << "gen_seeds: " << written << " seeds in " << out_root.string() << '\n';
    return 0;
}
