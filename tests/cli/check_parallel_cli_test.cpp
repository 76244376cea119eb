// `sfgc check` on several cores and machines, end to end (docs/programs.md, "More than one core",
// "More than one machine"; docs/cli.md): --jobs N gives the same report for every N; the parts of
// --shard K/N merged with --merge give the single run's report, text and JSON, for N = 1..5;
// merges of parts that do not fit, and bad values of --jobs and --shard, are errors (exit 2)
// that name the problem; the progress line is drawn on a terminal and never on a pipe.
#include "support.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace sfg_cli_test;

namespace {

// Races, an assert and a violation; with a small task budget the search is divided.
const char* const racy_text = R"(threads main, w0, w1, w2;
lock m;
var x, y : [EX(main) ⊔ EX(w0)]^m;
program racy {
  thread main { fork w0, w1, w2; join w0, w1, w2; assert x == 6; }
  thread w0 { repeat 2 { let t = x; x = t + 1; } acq m; y = 1; rel m; }
  thread w1 { repeat 2 { acq m; let t = x; x = t + 1; rel m; } }
  thread w2 { repeat 2 { acq m; let t = x; x = t + 1; rel m; } }
}
)";

// Barriers crossed twice by three threads, and a deadlock in a second program.
const char* const barrier_text = R"(threads q0, q1, q2;
barrier b(q0, q1, q2);
lock m, n;
var c0, c1, c2;
program particles {
  thread q0 { let i = 0; repeat 2 { i = i + 1; c0 = i; barrier b; let o = c1; assert o == i; barrier b; } }
  thread q1 { let i = 0; repeat 2 { i = i + 1; c1 = i; barrier b; let o = c2; assert o == i; barrier b; } }
  thread q2 { let i = 0; repeat 2 { i = i + 1; c2 = i; barrier b; let o = c0; assert o == i; barrier b; } }
}
program locks {
  thread q0 { acq m; acq n; c0 = 1; rel n; rel m; }
  thread q1 { acq n; acq m; c1 = 1; rel m; rel n; }
}
)";

std::vector<std::string> programs() {
    return {quote(write_scratch("racy.sfg", racy_text)),
            quote(write_scratch("barriers.sfg", barrier_text)),
            "specs/programs/fig2_1_bank_racy/fig2_1_bank_racy.sfg",
            "specs/programs/st_pool_racy/st_pool_racy.sfg",
            "specs/programs/lock_order_deadlock/lock_order_deadlock.sfg"};
}

// The parts of `file` for N = n, written to scratch files; their paths, quoted.
std::string shard(const std::string& file, const std::string& options, int n,
                  const std::string& tag) {
    std::string parts;
    for (int k = 1; k <= n; ++k) {
        fs::path part = scratch() / (tag + "-" + std::to_string(k) + ".json");
        Run r = sfgc("check " + file + " " + options + " --shard " + std::to_string(k) + "/" +
                     std::to_string(n) + " --jobs 2 --format json");
        INFO(r.err);
        CHECK((r.status == 0 || r.status == 1));
        std::ofstream(part, std::ios::binary) << r.out;
        parts += " " + quote(part);
    }
    return parts;
}

} // namespace

TEST_SUITE_BEGIN("check");

TEST_CASE("sfgc check --jobs N: the same report, text and JSON, for every N") {
    for (const std::string& file : programs())
        for (const std::string options : {"", "--task-budget 3 --split-above 1"}) {
            CAPTURE(file);
            CAPTURE(options);
            Run one = sfgc("check " + file + " " + options + " --jobs 1");
            Run one_json = sfgc("check " + file + " " + options + " --jobs 1 --format json");
            CHECK((one.status == 0 || one.status == 1));
            for (int jobs : {2, 3, 8}) {
                CAPTURE(jobs);
                Run r = sfgc("check " + file + " " + options + " --jobs " + std::to_string(jobs));
                CHECK(r.status == one.status);
                CHECK(r.out == one.out);
                Run j = sfgc("check " + file + " " + options + " --jobs " + std::to_string(jobs) +
                             " --format json");
                CHECK(j.out == one_json.out);
            }
        }
}

TEST_CASE("sfgc check --jobs 1024: as many threads as the memory allows, the same report") {
    // Each thread's stack counts against --max-memory: with 96 MiB, a few threads or none.
    const std::string file = programs()[0];
    Run one = sfgc("check " + file + " --jobs 1");
    for (const std::string memory : {"", " --max-memory 96"}) {
        CAPTURE(memory);
        Run many = sfgc("check " + file + " --jobs 1024" + memory);
        INFO(many.err);
        CHECK(many.status == one.status);
        CHECK(many.out == one.out);
    }
}

TEST_CASE("sfgc check --jobs, --shard, --merge: bad values are usage errors") {
    const std::string bank = "specs/programs/fig2_3_bank/fig2_3_bank.sfg";
    for (const std::string flags :
         {"--jobs 0", "--jobs abc", "--jobs -2", "--jobs 5000", "--jobs", "--shard 0/3",
          "--shard 4/3", "--shard 1/0", "--shard 3", "--shard 1/", "--shard a/b", "--shard -1/2",
          "--task-budget -1", "--split-above x"}) {
        CAPTURE(flags);
        Run r = sfgc("check " + bank + " " + flags);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK(!r.err.empty());
    }
    Run jobs = sfgc("check " + bank + " --jobs 0");
    CHECK(jobs.err.find("--jobs") != std::string::npos);
    CHECK(jobs.err.find("'0'") != std::string::npos);
    Run shard = sfgc("check " + bank + " --shard 4/3");
    CHECK(shard.err.find("K/N") != std::string::npos);
    // --merge takes parts only: no FILE, none of the search's options; and at least one part.
    Run whole = sfgc("check " + bank + " --shard 1/1 --format json");
    REQUIRE(whole.status == 0);
    const std::string part = quote(write_scratch("bank-1.json", whole.out));
    for (const std::string& args : std::vector<std::string>{
             bank + " --merge " + part, "--merge " + part + " --mode naive",
             "--merge " + part + " --jobs 2", "--merge " + part + " --shard 1/2",
             std::string("--merge"), "--merge " + part + " --emit-promela -"}) {
        CAPTURE(args);
        Run r = sfgc("check " + args);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
    }
    CHECK(sfgc("check --merge " + part).status == 0);
    // --emit-promela explores nothing: --jobs and --shard do not apply.
    CHECK(sfgc("check " + bank + " --emit-promela - --jobs 2").status == 2);
    CHECK(sfgc("check " + bank + " --emit-promela - --shard 1/2").status == 2);
}

TEST_CASE("sfgc check --shard K/N, --merge: the merge of N parts is the single run") {
    int n_divided = 0;
    for (const std::string& file : programs())
        for (const std::string options : {"", "--task-budget 3 --split-above 1"}) {
            CAPTURE(file);
            CAPTURE(options);
            Run single = sfgc("check " + file + " " + options);
            Run single_json = sfgc("check " + file + " " + options + " --format json");
            for (int n = 1; n <= 5; ++n) {
                CAPTURE(n);
                const std::string parts = shard(file, options, n, "merge");
                Run text = sfgc("check --merge" + parts);
                INFO(text.err);
                CHECK(text.status == single.status);
                CHECK(text.out == single.out);
                CHECK(text.err.empty());
                Run json = sfgc("check --merge" + parts + " --format json");
                CHECK(json.out == single_json.out);
                // Parts in another order merge the same.
                if (n > 1) {
                    const std::size_t second = parts.find(' ', 1);
                    Run reversed = sfgc("check --merge" + parts.substr(second) + " " +
                                        parts.substr(1, second - 1));
                    CHECK(reversed.out == single.out);
                }
                n_divided += n > 1 && !options.empty();
            }
        }
    CHECK(n_divided == 20);
    // A part as text is a report of its part alone, named so.
    Run part = sfgc("check " + programs()[0] + " --task-budget 3 --split-above 1 --shard 2/3");
    CHECK(part.out.find("(dpor, part 2/3)") != std::string::npos);
}

TEST_CASE("sfgc check --merge: parts that do not fit are errors naming the problem") {
    const std::string racy = programs()[0];
    const std::string options = "--task-budget 3 --split-above 1";
    shard(racy, options, 3, "fit");
    auto p = [](const std::string& tag, int k) {
        return quote(scratch() / (tag + "-" + std::to_string(k) + ".json"));
    };
    auto refused = [](const std::string& args, const std::string& message) {
        CAPTURE(args);
        Run r = sfgc("check --merge " + args);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK_MESSAGE(r.err.find(message) != std::string::npos, r.err);
    };
    CHECK(sfgc("check --merge " + p("fit", 1) + " " + p("fit", 2) + " " + p("fit", 3)).status == 1);
    refused(p("fit", 1) + " " + p("fit", 3), "part 2 of 3 is missing");
    refused(p("fit", 1), "parts 2, 3 of 3 are missing");
    refused(p("fit", 1) + " " + p("fit", 2) + " " + p("fit", 2) + " " + p("fit", 3),
            "part 2 of 3 is given twice");
    // Another division of the same search, another program, other options.
    shard(racy, options, 4, "four");
    refused(p("fit", 1) + " " + p("fit", 2) + " " + p("four", 3), "part 3 of 4");
    shard(programs()[1], options, 3, "other");
    refused(p("fit", 1) + " " + p("fit", 2) + " " + p("other", 3),
            "parts of different searches: of");
    shard(racy, options + " --max-steps 500", 3, "steps");
    refused(p("fit", 1) + " " + p("fit", 2) + " " + p("steps", 3),
            "different options (max-steps=10000 in");
    // The same file name with another text.
    fs::path edited = write_scratch("racy.sfg", std::string(racy_text) + "// edited\n");
    shard(quote(edited), options, 3, "edited");
    write_scratch("racy.sfg", racy_text);
    refused(p("fit", 1) + " " + p("fit", 2) + " " + p("edited", 3), "differs between them");
    // Not parts at all.
    fs::path report = write_scratch("report.json", sfgc("check " + racy + " --format json").out);
    refused(p("fit", 1) + " " + quote(report), "a report of a whole search is not a part");
    fs::path garbage = write_scratch("garbage.json", "{\"sfgc_check_part\": 1, \"part\": ");
    refused(quote(garbage), "not JSON");
    const std::string good = slurp(scratch() / "fit-1.json");
    fs::path cut = write_scratch("cut.json", good.substr(0, good.size() / 2));
    refused(quote(cut), "not a part");
    std::string wrong = good;
    wrong.replace(wrong.find("\"sfgc_check_part\":2"), 19, "\"sfgc_check_part\":7");
    refused(quote(write_scratch("v7.json", wrong)), "another format (version 7");
    std::string bad_step = good;
    const std::size_t steps = bad_step.find("\"steps\":[[");
    REQUIRE(steps != std::string::npos);
    bad_step.replace(steps, 10, "\"steps\":[[99,");
    refused(quote(write_scratch("bad-step.json", bad_step)) + " " + p("fit", 2) + " " + p("fit", 3),
            "not [thread, actions]");
    refused(quote(scratch() / "no-such-part.json"), "cannot open file");
}

TEST_CASE("sfgc check: a progress line on a terminal, never on a pipe") {
    if (shell("command -v script >/dev/null 2>&1") != 0) {
        MESSAGE("script (util-linux) not installed: skipped");
        return;
    }
    // 369,600 executions, 200,000 explored on one thread: several seconds here, more than one
    // on a machine twice as fast (the line waits a second before it is drawn).
    std::string counter = "threads main, w0, w1, w2, w3;\nlock m;\nvar x;\nprogram counter {\n"
                          "  thread main { fork w0, w1, w2, w3; join w0, w1, w2, w3; }\n";
    for (int i = 0; i < 4; ++i)
        counter += "  thread w" + std::to_string(i) +
                   " { repeat 3 { acq m; let t = x; x = t + 1; rel m; } }\n";
    counter += "}\n";
    const fs::path file = write_scratch("counter.sfg", counter);
    const std::string args = "check " + quote(file) + " --jobs 1 --max-executions 200000";
    // Standard error a terminal (script's pseudo-terminal), standard output a file. The
    // estimate of the divided top of the tree, and (--split-above 0) of probes as it goes.
    std::string report;
    for (const std::string more : {"", " --split-above 0"}) {
        CAPTURE(more);
        const fs::path log = scratch() / "tty.log", out = scratch() / "tty.out";
        const int status =
            shell("cd '" SFG_SOURCE_DIR "' && timeout 120 script -qfec \"'" SFGC_PATH "' " + args +
                  more + " > '" + out.string() + "'\" '" + log.string() + "' >/dev/null 2>&1");
        CHECK(status == 1); // sfgc's, through script: the bound is a finding
        const std::string tty = slurp(log);
        INFO(tty);
        CHECK(tty.find(" executions, ") != std::string::npos);
        CHECK(tty.find("/s") != std::string::npos);
        CHECK(tty.find("in all (estimate)") != std::string::npos);
        CHECK(tty.find("\r\033[K") != std::string::npos);
        // The report itself is untouched.
        report = slurp(out);
        CHECK(report.rfind("program counter: 200000 executions", 0) == 0);
    }
    // A pipe, or a file: nothing but the report (a search of more than a second here, within
    // sfgc()'s time limit under sanitizers).
    Run piped = sfgc("check " + quote(file) + " --jobs 1 --max-executions 100000");
    CHECK(piped.err.empty());
    CHECK(piped.out.rfind("program counter: 100000 executions", 0) == 0);
    Run json = sfgc("check " + quote(file) + " --max-executions 5000 --format json");
    CHECK(json.err.empty());
    CHECK(json.out.find("executions,") == std::string::npos);
}

TEST_SUITE_END();
