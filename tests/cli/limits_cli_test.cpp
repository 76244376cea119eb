// Hostile inputs end to end (docs/limits.md): names that are not UTF-8 reach JSON as U+FFFD,
// binary traces obey the text format's name rules, and every resource bound is enforced
// before the memory is spent, with exit 2 and an error naming the bound and its option.
#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using namespace sfg_cli_test;

namespace {

// Bad input is refused within a second of CPU time in a release build (sanitizers: ~10x).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double quickly = 10.0;
#else
constexpr double quickly = 1.0;
#endif

fs::path write(const std::string& name, const std::string& text) {
    fs::path p = scratch() / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

// JSON that a strict parser accepts: valid UTF-8 throughout.
json parse_strict(const std::string& text) {
    json j = json::parse(text, nullptr, false);
    CHECK_MESSAGE(!j.is_discarded(), "not valid JSON: " << text.substr(0, 400));
    return j;
}

std::string threads(int n) {
    std::string s;
    for (int i = 0; i < n; ++i)
        s += (i ? ", t" : "t") + std::to_string(i);
    return s;
}

// `[EX(t0) | ... | EX(tn-1)]^m`: one lock shared by n threads, n² edges.
// With `shared`, the first mode is RS(t0,t1): the loop's edges are then not one family (an edge
// family joins modes of one thread each, docs/language.md) and count against --max-edges.
std::string lock_spec(int n, bool shared = false) {
    std::string disc = shared ? "RS(t0, t1)" : "";
    for (int i = shared; i < n; ++i)
        disc += (i ? " | EX(t" : "EX(t") + std::to_string(i) + ")";
    return "threads " + threads(n) + "; lock m;\nvar x : [" + disc + "]^m;\n";
}

// Eleven doublings of a two-mode disjunction under a loop: 4,096 modes, 16.7 M candidates (half
// the modes RS(t0,t1): not an edge family).
std::string doubling_disjunctions() {
    std::string s = "threads t0, t1; lock m;\ndiscipline d0 = EX(t0) | RS(t0, t1);\n";
    for (int i = 1; i <= 11; ++i)
        s += "discipline d" + std::to_string(i) + " = d" + std::to_string(i - 1) + " | d" +
             std::to_string(i - 1) + ";\n";
    return s + "var x : [d11]^m;\n";
}

// Seventeen doublings of a sequence: 131,072 modes and edges, under every default bound.
std::string doubling_sequences(int n) {
    std::string s = "threads t0; lock m;\ndiscipline s0 = EX(t0);\n";
    for (int i = 1; i <= n; ++i)
        s += "discipline s" + std::to_string(i) + " = s" + std::to_string(i - 1) + " |> ^m s" +
             std::to_string(i - 1) + ";\n";
    return s + "var x : s" + std::to_string(n) + ";\n";
}

std::string barrier_spec(int n) {
    return "threads " + threads(n) + ";\nbarrier b(" + threads(n) + ");\nvar x : [RS(" +
           threads(n) + ") |> ^b EX(t0)]^b;\n";
}

// A binary trace (docs/traces.md): magic, then records. `names` are (kind, bytes) definitions.
std::string binary_trace(const std::vector<std::pair<int, std::string>>& names,
                         const std::string& events) {
    std::string out = "SFGTRC1\n";
    for (const auto& [kind, name] : names) {
        out += static_cast<char>(0x40 + kind);
        out += static_cast<char>(name.size()); // names here are shorter than 128 bytes
        out += name;
    }
    return out + events;
}

} // namespace

TEST_CASE("names that are not UTF-8 reach JSON as U+FFFD, in every writer") {
    SUBCASE("text trace") {
        fs::path t = write("ff.std", "a|w(\xff)\nb|w(\xff)\n");
        Run r = sfgc("trace " + quoted(t) + " --format json");
        CHECK(r.status == 1); // the two writes race
        json j = parse_strict(r.out);
        CHECK(j.dump().find("\xEF\xBF\xBD") != std::string::npos);
    }
    SUBCASE("binary trace") {
        // threads a, b; variable \xff; a|w(v0), b|w(v0).
        fs::path t = write("ff.bin", binary_trace({{0, "a"}, {0, "b"}, {1, "\xff"}},
                                                  std::string("\x01\x00\x00\x01\x01\x00", 6)));
        Run r = sfgc("trace " + quoted(t) + " --format json");
        CHECK(r.status == 1);
        json j = parse_strict(r.out);
        CHECK(j.dump().find("\xEF\xBF\xBD") != std::string::npos);
    }
    SUBCASE("spec file name") {
        fs::path spec = write("name\xff.sfg", "threads t; var x : EX(t);\n");
        Run r = sfgc(quoted(spec) + " --json");
        CHECK(r.status == 0);
        json j = parse_strict(r.out);
        CHECK(j["file"].get<std::string>().find("\xEF\xBF\xBD") != std::string::npos);
        Run d = sfgc(quoted(spec) + " --dot");
        CHECK(d.status == 0);
        CHECK(d.out.find("\xEF\xBF\xBD") != std::string::npos);
        CHECK(d.out.find('\xff') == std::string::npos);
    }
    SUBCASE("spec file name in a check report") {
        fs::path spec =
            write("prog\xff.sfg", "threads t; var x;\nprogram p { thread t { x = 1; } }\n");
        Run r = sfgc("check " + quoted(spec) + " --format json");
        CHECK(r.status == 0);
        parse_strict(r.out);
    }
}

TEST_CASE("binary traces obey the text format's name rules") {
    const std::string write_a = std::string("\x01\x00\x00", 3); // thread 0 writes variable 0
    const std::pair<const char*, std::vector<std::pair<int, std::string>>> cases[] = {
        {"empty thread", {{0, ""}, {1, "x"}}},
        {"thread starting with # (a comment in text)", {{0, "#0"}, {1, "x"}}},
        {"thread with a newline", {{0, "a\nERROR: forged"}, {1, "x"}}},
        {"variable with a control character", {{0, "a"}, {1, "x\x1b[31m"}}},
        {"variable with a blank", {{0, "a"}, {1, "x y"}}},
        {"variable with a separator", {{0, "a"}, {1, "x|y"}}},
        {"lock with DEL", {{0, "a"}, {2, "m\x7f"}}},
        {"location with a newline", {{0, "a"}, {1, "x"}, {5, "f.c:1\nERROR"}}},
        {"empty location", {{0, "a"}, {1, "x"}, {5, ""}}},
        {"location with a blank at its end", {{0, "a"}, {1, "x"}, {5, "f.c:1 "}}},
    };
    for (const auto& [what, names] : cases) {
        std::string input = what;
        CAPTURE(input);
        fs::path t = write("bad_name.bin", binary_trace(names, write_a));
        Run r = sfgc("trace " + quoted(t));
        CHECK(r.status == 2);
        CHECK(r.err.find("bad_name.bin: error: event 1 (byte offset ") != std::string::npos);
        CHECK(r.err.find("): invalid ") != std::string::npos);
        CHECK(r.out.find("ERROR") == std::string::npos);
    }
    // Tabs inside a location and bytes >= 0x80 in names are what the text format allows.
    fs::path ok = write("ok_name.bin", binary_trace({{0, "\xc3\xa9"}, {1, "x"}, {5, "f.c:\t1"}},
                                                    std::string("\x81\x00\x00\x00", 4)));
    Run r = sfgc("trace " + quoted(ok));
    CHECK(r.status == 0);
    CHECK(r.err == "");
}

TEST_CASE("the candidate-edge bound is enforced before the edges are built") {
    SUBCASE("eleven doublings under a loop") {
        fs::path spec = write("doubling.sfg", doubling_disjunctions());
        Run r = sfgc(quoted(spec));
        CHECK(r.status == 2);
        CHECK(r.err.find("doubling.sfg:14:14: error: the discipline of 'x' needs more than "
                         "1000000 candidate edges at this operator; raise the limit with "
                         "--max-edges") != std::string::npos);
        CHECK(r.cpu_seconds < quickly);
    }
    SUBCASE("a lock shared by 39,000 threads") {
        fs::path spec = write("lock39k.sfg", lock_spec(39000, true));
        Run r = sfgc(quoted(spec));
        CHECK(r.status == 2);
        CHECK(r.err.find("candidate edges at this operator; raise the limit with --max-edges") !=
              std::string::npos);
        CHECK(r.cpu_seconds < 3 * quickly); // 800 KB to parse: 0.4 s in Release, 9 s under ASan
    }
}

TEST_CASE("every compile bound names its option") {
    fs::path spec = write("lock4.sfg", lock_spec(4));
    const std::pair<const char*, const char*> cases[] = {
        {"--max-modes 3", "expands to more than 3 access modes; raise the limit with --max-modes"},
        {"--max-edges 15", "needs more than 15 candidate edges at this operator"},
        {"--max-net-size 50", "more than 50; raise the limit with --max-net-size"},
        {"--dot --max-output 100", "larger than 100 bytes and was cut; raise the limit with "
                                   "--max-output"},
        {"--json --max-output 100", "--max-output"},
        {"--svg lock4.svg --max-layout 10", "raise the limit with --max-layout"},
        {"--verify-net --max-markings 5", "lock4.sfg:2:5: error: the net of 'x' has more than 5 "
                                          "reachable markings; raise the limit with "
                                          "--max-markings"},
    };
    for (const auto& [args, message] : cases) {
        std::string option = args;
        CAPTURE(option);
        Run r = sfgc(quoted(spec) + " " + args);
        CHECK(r.status == 2);
        CHECK_MESSAGE(r.err.find(message) != std::string::npos, r.err);
    }
    // Exactly at the bounds it compiles: 4 modes, 16 candidates, 4 + 16 * 5 = 84 nodes.
    CHECK(sfgc(quoted(spec) + " --max-modes 4 --max-edges 16 --max-net-size 84").status == 0);
    // A PNML file cut at the limit is removed, not left half-written.
    fs::path pnml = scratch() / "cut.pnml";
    CHECK(sfgc(quoted(spec) + " --pnml " + quoted(pnml) + " --max-output 100").status == 2);
    CHECK_FALSE(fs::exists(pnml));
    for (const char* bad : {"--max-edges -1", "--max-output x", "--max-markings ''"})
        CHECK(sfgc(quoted(spec) + " " + bad).status == 2);
}

TEST_CASE("large legitimate specs: DOT and JSON stream, proportional to their size") {
    // A lock over 120 threads: 14,400 edges, ~72,000 places and transitions.
    fs::path lock = write("lock120.sfg", lock_spec(120));
    Run dot = sfgc(quoted(lock) + " --dot");
    CHECK(dot.status == 0);
    CHECK(dot.out.rfind("}\n") == dot.out.size() - 2);
    CHECK(sfgc(quoted(lock) + " --dot --view both").status == 0);
    Run js = sfgc(quoted(lock) + " --json");
    CHECK(js.status == 0);
    json j = parse_strict(js.out);
    CHECK(j["variables"][0]["sfg"]["edges"].size() == 14400);
    // Laying it out would take Graphviz hours: refused by default, with the way out named.
    Run svg = sfgc(quoted(lock) + " --svg " + quoted(scratch() / "lock120.svg"));
    CHECK(svg.status == 2);
    CHECK(svg.err.find("--max-layout") != std::string::npos);

    // Doubling sequences stay under the mode bound: 2^12 modes here, same shape as 2^17.
    fs::path seq = write("seq12.sfg", doubling_sequences(12));
    Run s = sfgc(quoted(seq) + " --json");
    CHECK(s.status == 0);
    json sj = parse_strict(s.out);
    CHECK(sj["variables"][0]["sfg"]["modes"].size() == 4096);
    CHECK(sj["variables"][0]["net"]["arcs"].size() == 4095 * 6);
}

TEST_CASE("the 553-byte doubling spec of 131,072 modes streams 215 MB of JSON") {
    // Once 21 s and 2.9 GB (the document was built in memory, then dumped).
    fs::path seq = write("seq17.sfg", doubling_sequences(17));
    fs::path count = scratch() / "seq17.count";
    const std::string cmd = "cd '" SFG_SOURCE_DIR "' && timeout 120 '" SFGC_PATH "' " +
                            quoted(seq) + " --json | wc -c > " + quoted(count);
    CHECK(shell(cmd) == 0);
    // 214,991,923 bytes when the file is named "seq.sfg"; here its name is the scratch path.
    CHECK(std::stoll(slurp(count)) == 214991923 - 7 + static_cast<long long>(seq.string().size()));
}

TEST_CASE("--verify-net is bounded: a barrier over 80 threads has 2^80 markings") {
    fs::path spec = write("barrier80.sfg", barrier_spec(80));
    Run r = sfgc(quoted(spec) + " --verify-net");
    CHECK(r.status == 2);
    CHECK(r.err.find("barrier80.sfg:3:5: error: the net of 'x' has more than 100000 reachable "
                     "markings; raise the limit with --max-markings") != std::string::npos);
    CHECK(r.cpu_seconds < 10 * quickly);
    // Over 8 threads it is small enough: 2^8 + ... markings, all feasible.
    Run small = sfgc(quoted(write("barrier8.sfg", barrier_spec(8))) + " --verify-net");
    CHECK(small.status == 0);
    CHECK(small.out.find("1-safe; every marking is feasible") != std::string::npos);
}

TEST_CASE("--max-memory: state that outgrows the input ends in an error, not in swapping") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    MESSAGE("sanitizer build: sfgc does not apply the memory limit (its shadow memory counts)");
#else
    // 20,000 threads each writing a variable of its own: 318 KB of trace, 5.5 GB of hb state.
    std::string trace;
    for (int i = 0; i < 20000; ++i)
        trace += "t" + std::to_string(i) + "|w(x" + std::to_string(i) + ")\n";
    fs::path t = write("many_threads.std", trace);
    Run r = sfgc("trace " + quoted(t) + " --analysis hb --max-memory 256");
    CHECK(r.status == 2);
    CHECK(r.err == "sfgc: error: out of memory: the command needs more than 256 MiB; raise the "
                   "limit with --max-memory\n");
    // The other analyses keep little per thread and finish within the same limit.
    CHECK(sfgc("trace " + quoted(t) + " --analysis goldilocks,eraser --max-memory 256").status ==
          0);
#endif
}
