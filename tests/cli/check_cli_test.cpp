// `sfgc check` end to end (docs/programs.md, parts 5, 6 and 8): exit codes, the JSON keys,
// counterexamples written by --trace-out replayed by `sfgc trace`, --emit-promela's output
// accepted by Spin with the same assertion verdicts, and the bound finding. The verdicts of every
// example are checked through the library in checker/tests; here it is the command line.
#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json; // keeps the keys in the order printed
using namespace sfg_cli_test;

namespace {

const std::string bank = "specs/programs/fig2_3_bank/fig2_3_bank.sfg";           // clean
const std::string racy = "specs/programs/fig2_1_bank_racy/fig2_1_bank_racy.sfg"; // race, assert
const std::string violation =
    "specs/programs/fig3_6_lock_violation/fig3_6_lock_violation.sfg"; // race, violation
const std::string deadlock = "specs/programs/lock_order_deadlock/lock_order_deadlock.sfg";
const std::string peterson = "specs/programs/peterson/peterson.sfg"; // clean, with asserts

// Two programs over one set of declarations.
const char* const two_programs = R"(threads a, b;
var x;
program one { thread a { x = 1; } thread b { x = 2; } }
program two { thread a { x = 1; } thread b { read x; } }
)";

json check_json(const std::string& args, int expected_status) {
    Run r = sfgc("check " + args + " --format json");
    INFO(r.err);
    REQUIRE(r.status == expected_status);
    return json::parse(r.out);
}

std::vector<std::string> keys(const json& object) {
    std::vector<std::string> out;
    for (auto it = object.begin(); it != object.end(); ++it)
        out.push_back(it.key());
    return out;
}

// Our verdict "some assertion, division by zero or ill-formed op can happen", the one Spin's
// asserts give (docs/promela.md: a join of a never-forked thread is a deadlock to Spin only).
bool assertion_verdict(const json& report) {
    for (const json& f : report["findings"]) {
        const std::string kind = f["kind"];
        const bool never_forked =
            f["message"].get<std::string>().find("never forked") != std::string::npos;
        if (kind == "assert" || kind == "divzero" || (kind == "ill-formed" && !never_forked))
            return true;
    }
    return false;
}

bool have_spin() {
    return shell("command -v spin >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1") == 0;
}

} // namespace

TEST_SUITE_BEGIN("check");

TEST_CASE("sfgc check: exit 0 when nothing is found, 1 on a finding") {
    Run clean = sfgc("check " + bank);
    INFO(clean.err);
    CHECK(clean.status == 0);
    CHECK(clean.out.find("bank") != std::string::npos);
    for (const std::string& file : {racy, violation, deadlock}) {
        CAPTURE(file);
        Run r = sfgc("check " + file);
        INFO(r.err);
        CHECK(r.status == 1);
        CHECK(!r.out.empty());
    }
}

TEST_CASE("sfgc check: exit 2 on bad programs, bad flags and unknown programs") {
    fs::path syntax = write_scratch("syntax.sfg", "threads a;\nvar x;\n"
                                                  "program p { thread a { x = ; } }\n");
    Run r = sfgc("check " + quote(syntax));
    CHECK(r.status == 2);
    CHECK(r.err.find("syntax.sfg:3:") != std::string::npos);
    CHECK(r.out.empty());

    fs::path undeclared = write_scratch("undeclared.sfg", "threads a;\nvar x;\n"
                                                          "program p { thread a { y = 1; } }\n");
    r = sfgc("check " + quote(undeclared));
    CHECK(r.status == 2);
    CHECK(r.err.find("undeclared.sfg:3:") != std::string::npos);

    fs::path none = write_scratch("noprogram.sfg", "threads a;\nvar x;\n");
    r = sfgc("check " + quote(none));
    CHECK(r.status == 2);
    CHECK(r.err.find("no program to check") != std::string::npos);

    CHECK(sfgc("check specs/programs/does_not_exist.sfg").status == 2);
    CHECK(sfgc("check").status == 2);
    for (const std::string flags :
         {"--mode bogus", "--max-steps abc", "--max-executions -1", "--format yaml", "--frobnicate",
          "--seed", "--pct-depth 2", "--mode pct --pct-depth 0", "--mode pct --pct-depth 65"}) {
        CAPTURE(flags);
        r = sfgc("check " + bank + " " + flags);
        CHECK(r.status == 2);
        CHECK(!r.err.empty());
        CHECK(r.out.empty());
    }

    // An unknown --program names the programs there are.
    fs::path two = write_scratch("two.sfg", two_programs);
    r = sfgc("check " + quote(two) + " --program three");
    CHECK(r.status == 2);
    CHECK(r.err.find("no program 'three'") != std::string::npos);
    CHECK(r.err.find("one, two") != std::string::npos);
    // --program picks one; without it every program is checked (a JSON array).
    json picked = check_json(quote(two) + " --program two", 1);
    CHECK(picked["program"] == "two");
    json all = check_json(quote(two), 1);
    REQUIRE(all.is_array());
    CHECK(all.size() == 2);
}

TEST_CASE("sfgc check --mode pct: its runs, a finding, the same report for every --jobs") {
    // main starts three threads; `check` fails only when it reads between another's two writes.
    fs::path reorder = write_scratch(
        "reorder.sfg", "threads main, s0, s1, s2, check;\nvolatile a, b;\nprogram reorder {\n"
                       "  thread main { fork s0; fork s1; fork s2; fork check; }\n"
                       "  thread s0 { a = 1; b = 1; }\n  thread s1 { a = 1; b = 1; }\n"
                       "  thread s2 { a = 1; b = 1; }\n"
                       "  thread check { let x = a; let y = b; assert x == y; }\n}\n");
    const std::string args = "check " + quote(reorder) + " --mode pct --seed 3 --pct-depth 2";
    Run one = sfgc(args + " --jobs 1");
    INFO(one.err);
    CHECK(one.status == 1);
    CHECK(one.out.find("1000 executions") != std::string::npos);
    CHECK(one.out.find("incomplete (pct)") != std::string::npos);
    CHECK(one.out.find("assert at line 8") != std::string::npos);
    CHECK(sfgc(args + " --jobs 2").out == one.out);
    json j = check_json(quote(reorder) + " --mode pct --seed 3 --max-executions 50", 1);
    CHECK(j["complete"] == false);
    CHECK(j["executions"] == 50);
}

TEST_CASE("sfgc check --format json has exactly the documented keys") {
    const std::vector<std::string> top = {"program",      "executions", "classes",
                                          "final_states", "complete",   "findings"};
    const std::vector<std::string> finding = {"kind", "var", "line", "message", "trace"};
    const std::vector<std::string> step = {"thread", "op", "line"};
    const std::set<std::string> kinds = {"race",     "violation",  "assert", "divzero",
                                         "deadlock", "ill-formed", "bound"};
    std::set<std::string> seen;
    for (const auto& [file, status] : std::vector<std::pair<std::string, int>>{
             {bank, 0}, {racy, 1}, {violation, 1}, {deadlock, 1}}) {
        CAPTURE(file);
        json j = check_json(file, status);
        CHECK(keys(j) == top);
        CHECK(j["program"].is_string());
        CHECK(j["executions"].is_number_unsigned());
        CHECK(j["classes"].is_number_unsigned());
        CHECK(j["final_states"].is_number_unsigned());
        CHECK(j["complete"] == true);
        CHECK(j["findings"].empty() == (status == 0));
        for (const json& f : j["findings"]) {
            CHECK(keys(f) == finding);
            const std::string kind = f["kind"];
            seen.insert(kind);
            CHECK(kinds.count(kind) == 1);
            // var: the variable of a race or violation, null otherwise; line: the source line.
            CHECK(f["var"].is_string() == (kind == "race" || kind == "violation"));
            CHECK(f["line"].is_number_unsigned());
            CHECK(f["message"].is_string());
            REQUIRE(f["trace"].is_array());
            CHECK(!f["trace"].empty());
            for (const json& s : f["trace"]) {
                CHECK(keys(s) == step);
                CHECK(s["thread"].is_string());
                CHECK(s["op"].is_string());
                CHECK(s["line"].is_number_unsigned());
            }
        }
    }
    CHECK(seen == std::set<std::string>{"race", "assert", "violation", "deadlock"});
}

TEST_CASE("sfgc check --max-executions 1: a bound finding and complete false") {
    json j = check_json(bank + " --max-executions 1", 1);
    CHECK(j["complete"] == false);
    CHECK(j["executions"] == 1);
    REQUIRE(j["findings"].size() == 1);
    CHECK(j["findings"][0]["kind"] == "bound");
    CHECK(j["findings"][0]["line"].is_null());
    CHECK(j["findings"][0]["var"].is_null());
    Run text = sfgc("check " + bank + " --max-executions 1");
    CHECK(text.status == 1);
}

TEST_CASE("sfgc check --max-states: the exploration's work bounded, in every mode") {
    for (const char* mode : {"naive", "dpor", "random"}) {
        CAPTURE(mode);
        json j = check_json(bank + " --max-states 1 --mode " + mode, 1);
        CHECK(j["complete"] == false);
        REQUIRE(j["findings"].size() >= 1);
        const json& last = j["findings"].back();
        CHECK(last["kind"] == "bound");
        CHECK(last["message"].get<std::string>().find("(--max-states); the search is "
                                                      "incomplete") != std::string::npos);
    }
    // Enough for the whole space: complete, no bound.
    json whole = check_json(bank + " --max-states 100000", 0);
    CHECK(whole["complete"] == true);
    CHECK(sfgc("check " + bank + " --max-states -3").status == 2);
}

TEST_CASE("sfgc check --trace-out: one STD trace per finding that sfgc trace replays") {
    for (const std::string& file : {racy, violation, deadlock}) {
        CAPTURE(file);
        const fs::path dir = scratch() / ("traces-" + fs::path(file).stem().string());
        fs::remove_all(dir);
        json j = check_json(file + " --trace-out " + quote(dir), 1);
        const std::string program = j["program"];
        std::size_t files = 0;
        for (const auto& e : fs::directory_iterator(dir))
            files += e.path().extension() == ".std";
        CHECK(files == j["findings"].size());
        for (const json& f : j["findings"]) {
            const std::string kind = f["kind"];
            CAPTURE(kind);
            const std::string what = f["var"].is_string() ? f["var"].get<std::string>()
                                                          : std::to_string(f["line"].get<int>());
            const fs::path trace = dir / (program + "-" + kind + "-" + what + ".std");
            REQUIRE(fs::exists(trace));
            if (kind != "race" && kind != "violation") {
                // Not a trace finding, but the trace is well formed.
                Run r = sfgc("trace " + quote(trace) + " --analysis hb");
                INFO(r.err);
                CHECK((r.status == 0 || r.status == 1));
                continue;
            }
            // The same finding: same variable, reported at the same source line.
            const bool race = kind == "race";
            Run r = sfgc("trace " + quote(trace) + " --format json " +
                         (race ? "--analysis hb" : "--analysis enforce --spec " + file));
            INFO(r.err);
            REQUIRE(r.status == 1);
            json t = json::parse(r.out);
            const std::string location =
                program + ":" + std::to_string(f["line"].get<int>()); // STD's PROGRAM:LINE
            bool same = false;
            for (const json& a : t["analyses"])
                for (const json& x : a[race ? "races" : "violations"])
                    same = same || (x["var"] == f["var"] && x["location"] == location);
            CHECK_MESSAGE(same, r.out);
        }
    }
}

TEST_CASE("sfgc check --emit-promela: to a file or stdout, one program, no exploration") {
    Run out = sfgc("check " + bank + " --emit-promela -");
    INFO(out.err);
    REQUIRE(out.status == 0);
    CHECK(out.out.rfind("/* Promela model of sfg program 'bank'", 0) == 0);
    CHECK(out.out.find("active proctype p_main()") != std::string::npos);
    CHECK(out.err.empty());

    const fs::path model = scratch() / "bank.pml";
    Run file = sfgc("check " + bank + " --emit-promela " + quote(model));
    CHECK(file.status == 0);
    CHECK(file.out == "wrote " + model.string() + "\n");
    CHECK(slurp(model) == out.out);

    // Several programs: --program is required, and the error lists them.
    fs::path two = write_scratch("two.sfg", two_programs);
    Run many = sfgc("check " + quote(two) + " --emit-promela -");
    CHECK(many.status == 2);
    CHECK(many.out.empty());
    CHECK(many.err.find("--program") != std::string::npos);
    CHECK(many.err.find("one, two") != std::string::npos);
    Run one = sfgc("check " + quote(two) + " --program two --emit-promela -");
    CHECK(one.status == 0);
    CHECK(one.out.find("program 'two'") != std::string::npos);

    // The exploration's options do not apply; an unwritable OUT is an error.
    for (const std::string flags : {"--format json", "--mode naive", "--max-executions 5",
                                    "--trace-out /tmp/x", "--preemption-bound 1"}) {
        CAPTURE(flags);
        Run r = sfgc("check " + bank + " --emit-promela - " + flags);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
    }
    CHECK(sfgc("check " + bank + " --emit-promela /nonexistent-dir/m.pml").status == 2);
    CHECK(sfgc("check " + bank + " --emit-promela").status == 2);

    // Constants beyond Promela's 32 bits: a warning in the diagnostics' format, still written.
    fs::path big = write_scratch("big.sfg", "threads a;\nvar x;\nprogram p {\n"
                                            "  init x = 5000000000;\n  thread a { x = 1; }\n}\n");
    Run w = sfgc("check " + quote(big) + " --emit-promela -");
    CHECK(w.status == 0);
    CHECK(w.err.find("big.sfg:4: warning: constant 5000000000") != std::string::npos);
}

TEST_CASE("sfgc check --emit-promela: Spin accepts every example and agrees on assertions") {
    if (!have_spin()) {
        MESSAGE("spin or gcc not installed: skipped");
        return;
    }
    // spin -a parses and checks the model (cheap); every example must pass.
    std::vector<std::string> examples;
    for (const auto& e : fs::directory_iterator(SFG_SOURCE_DIR "/specs/programs"))
        if (e.is_directory())
            examples.push_back("specs/programs/" + e.path().filename().string() + "/" +
                               e.path().filename().string() + ".sfg");
    std::sort(examples.begin(), examples.end());
    CHECK(examples.size() >= 12);
    for (const std::string& file : examples) {
        CAPTURE(file);
        const fs::path dir = scratch() / ("spin-" + fs::path(file).stem().string());
        fs::create_directories(dir);
        Run r = sfgc("check " + file + " --emit-promela " + quote(dir / "m.pml"));
        REQUIRE(r.status == 0);
        CHECK(shell("cd " + quote(dir) + " && spin -a m.pml >spin.out 2>&1") == 0);
        CHECK(fs::exists(dir / "pan.c"));
    }
    // The full search on three: Spin's "assertion violated" iff we find an assert-like finding.
    for (const std::string& file : {racy, bank, peterson}) {
        CAPTURE(file);
        const bool ours = assertion_verdict(check_json(file, file == racy ? 1 : 0));
        const fs::path dir = scratch() / ("spin-" + fs::path(file).stem().string());
        REQUIRE(shell("cd " + quote(dir) + " && gcc -w -O1 -o pan pan.c >gcc.out 2>&1") == 0);
        shell("cd " + quote(dir) + " && ./pan -E -m1000000 >pan.out 2>&1");
        const std::string pan = slurp(dir / "pan.out");
        INFO(pan);
        CHECK(pan.find("max search depth too small") == std::string::npos);
        CHECK((pan.find("assertion violated") != std::string::npos) == ours);
        CHECK(ours == (file == racy)); // not vacuous: one of the three fails
    }
}

TEST_SUITE_END();
