// sfgc on the thesis' chapter 5 examples (specs/extensions/): golden DOT, JSON and PNML,
// --verify-net, Graphviz accepting the DOT, and --emit-cpp: LOCK modes, values and queues
// emitted.
// Set SFG_UPDATE_GOLDEN=1 to rewrite tests/golden/extensions/ from the current output.
#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using namespace sfg_cli_test;

} // namespace

TEST_CASE("chapter 5 specs: golden DOT, JSON and PNML, and Graphviz accepts the DOT") {
    auto specs = spec_names("specs/extensions");
    REQUIRE(specs.size() >= 3);
    for (const std::string& s : specs) {
        CAPTURE(s);
        std::string file = "specs/extensions/" + s + ".sfg";
        Run dot = sfgc(file + " --dot --view both");
        CHECK(dot.status == 0);
        CHECK(dot.err.empty());
        check_golden("extensions/" + s + ".dot", dot.out);
        fs::path g = scratch() / "ext.dot";
        std::ofstream(g) << dot.out;
        CHECK(shell("dot -Tsvg '" + g.string() + "' -o /dev/null 2>/dev/null") == 0);
        Run json = sfgc(file + " --json");
        CHECK(json.status == 0);
        check_golden("extensions/" + s + ".json", json.out);
        fs::path pnml = scratch() / (s + ".pnml");
        Run p = sfgc(file + " --pnml '" + pnml.string() + "'");
        CHECK(p.status == 0);
        check_golden("extensions/" + s + ".pnml", slurp(pnml));
        Run v = sfgc(file + " --verify-net");
        CHECK(v.status == 0);
        check_golden("extensions/" + s + ".verify", v.out);
    }
}

TEST_CASE("Figure 5.1: a LOCK mode in JSON and DOT") {
    Run r = sfgc("specs/extensions/fig5_1_locked.sfg --json");
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    const auto& x = j["variables"][1];
    CHECK(x["name"] == "x");
    CHECK(x["sfg"]["modes"][0] == nlohmann::json::parse(R"({"id": 0, "kind": "LOCK",
        "threads": ["t0", "t1", "t2"], "lock": "m"})"));
    CHECK(x["net"]["places"].size() == 3); // one Acc place per thread, as for RS(t0,t1,t2)
    CHECK(j.count("groups") == 0);
    Run d = sfgc("specs/extensions/fig5_1_locked.sfg --dot --view sfg");
    CHECK(d.out.find("label=\"LOCK_m(t0,t1,t2)\"") != std::string::npos);
}

TEST_CASE("the vflag handshake: mechanisms v==1 and v==0 on its two edges") {
    Run r = sfgc("specs/extensions/vflag.sfg --json");
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    const auto& edges = j["variables"][0]["sfg"]["edges"];
    REQUIRE(edges.size() == 2);
    CHECK(edges[0]["mech"] == "v==1");
    CHECK(edges[1]["mech"] == "v==0");
    CHECK(j["mechanisms"] == nlohmann::json::parse(R"([{"name": "v", "kind": "volatile"}])"));
    Run d = sfgc("specs/extensions/vflag.sfg --dot --view sfg");
    CHECK(d.out.find("label=\"v==1\"") != std::string::npos);
}

TEST_CASE("the work queue: a queue mechanism, a group, EX(each workers)") {
    Run r = sfgc("specs/extensions/work_queue.sfg --json");
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["mechanisms"] == nlohmann::json::parse(R"([{"name": "q", "kind": "queue"}])"));
    CHECK(j["groups"] ==
          nlohmann::json::parse(R"([{"name": "workers", "threads": ["w1", "w2"]}])"));
    const auto& g = j["variables"][0]["sfg"];
    CHECK(g["modes"].size() == 3);
    CHECK(g["edges"].size() == 6);
    for (const auto& e : g["edges"])
        CHECK(e["mech"] == "q");
    // Sugar: the same nets as the spec written out.
    fs::path plain = scratch() / "work_queue_plain.sfg";
    std::ofstream(plain) << "threads main, w1, w2;\nqueue q;\n"
                            "var task : EX(main) ▷^q [EX(w1) ⊔ EX(w2)]^q;\n";
    Run p = sfgc("'" + plain.string() + "' --json");
    auto k = nlohmann::json::parse(p.out);
    CHECK(k["variables"] == j["variables"]);
    // The DOT differs only in the graph's label, the file name.
    auto body = [](const std::string& dot) { return dot.substr(dot.find("\tnode [")); };
    CHECK(body(sfgc("'" + plain.string() + "' --dot --view both").out) ==
          body(sfgc("specs/extensions/work_queue.sfg --dot --view both").out));
}

TEST_CASE("--emit-cpp: LOCK modes, values and queues are emitted; groups just work") {
    // LOCK modes are emitted with their lock (tests/live/lock_mode_test.cpp runs them), value
    // labels with their value (tests/live/values_test.cpp).
    for (const char* stem : {"fig5_1_locked", "guarded_phase"}) {
        CAPTURE(stem);
        Run r = sfgc("specs/extensions/" + std::string(stem) + ".sfg --emit-cpp -");
        CHECK(r.status == 0);
        CHECK(r.err.empty());
        CHECK(r.out.find("{::sfg::ModeKind::LOCK, ") != std::string::npos);
    }
    Run vflag = sfgc("specs/extensions/vflag.sfg --emit-cpp -");
    CHECK(vflag.status == 0);
    CHECK(vflag.out.find(", true, 1}, // x: EX(Thread0) -v==1-> EX(Thread1)") != std::string::npos);
    CHECK(vflag.out.find("#if !defined(SFG_SPEC_VALUES)") != std::string::npos);
    // Queues (thesis §5.1) with their name and q(o) edges (tests/live/queue_test.cpp runs them).
    fs::path out = scratch() / "work_queue.hpp";
    fs::remove(out);
    Run queue = sfgc("specs/extensions/work_queue.sfg --emit-cpp '" + out.string() + "'");
    CHECK(queue.status == 0);
    CHECK(queue.err.empty());
    std::ifstream in(out);
    const std::string header((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    CHECK(header.find("#if !defined(SFG_SPEC_QUEUES)") != std::string::npos);
    CHECK(header.find("::sfg::MechKind::queue, ") != std::string::npos);
    CHECK(header.find(" -q-> EX(w2)\n") != std::string::npos);
    CHECK(header.find(", // queues\n") != std::string::npos);
    CHECK(vflag.out.find("SFG_SPEC_QUEUES") == std::string::npos);

    fs::path grouped = scratch() / "grouped.sfg";
    std::ofstream(grouped) << "threads main, deposit, withdraw;\nlock m;\n"
                              "group tellers = deposit, withdraw;\n"
                              "var balance : EX(main) ▷^fork [EX(each tellers)]^m ▷^join "
                              "EX(main);\n";
    Run g = sfgc("'" + grouped.string() + "' --emit-cpp - --namespace bank");
    Run b = sfgc("specs/thesis/bank.sfg --emit-cpp - --namespace bank");
    CHECK(g.status == 0);
    // The same tables as the bank spec written out; only the file name and hash differ.
    auto tables = [](const std::string& h) {
        const std::size_t from = h.find("inline constexpr const char* names[]");
        const std::size_t to = h.find("inline constexpr ::sfg::spec_data::spec data");
        REQUIRE(from != std::string::npos);
        REQUIRE(to != std::string::npos);
        return h.substr(from, to - from);
    };
    CHECK(tables(g.out) == tables(b.out));
}

TEST_CASE("sfgc trace enforces LOCK modes: Figure 5.1 conforms to the order, not to the lock") {
    Run r = sfgc("trace specs/traces/fig5_1.std --spec specs/extensions/fig5_1_locked.sfg "
                 "--analysis enforce,hb --format json");
    CHECK(r.status == 1);
    const auto j = nlohmann::json::parse(r.out);
    const auto& violations = j["analyses"][0]["violations"];
    REQUIRE(violations.size() == 1); // x; `ordered` conforms
    CHECK(violations[0]["var"] == "x");
    CHECK(violations[0]["event"] == 1);
    CHECK(violations[0]["message"] ==
          "w(x) by t0 is not permitted: LOCK_m(t0,t1,t2) needs t0 to hold m");
    CHECK(j["analyses"][1]["races"].empty());
}

TEST_CASE("sfgc check enforces LOCK modes: the Figure 5.1 program violates LOCK(m: t0, t1, t2)") {
    Run r = sfgc("check specs/programs/fig5_1_locked/fig5_1_locked.sfg");
    CHECK(r.status == 1);
    CHECK(r.out.find("violation on x at line 10: w(x) by t0 is not permitted: LOCK_m(t0,t1,t2) "
                     "needs t0 to hold m") != std::string::npos);
    CHECK(r.out.find("violation on ordered") == std::string::npos);
}

TEST_CASE("sfgc trace enforces value labels: the vflag handshake admitted, and too early") {
    Run ok = sfgc("trace specs/traces/vflag_handshake.std --spec specs/extensions/vflag.sfg");
    CHECK(ok.status == 0);
    CHECK(ok.out.find("SUMMARY: 8 events; enforce: 0 violations; hb: 0 races") !=
          std::string::npos);
    Run bad = sfgc("trace specs/traces/vflag_too_early.std --spec specs/extensions/vflag.sfg");
    CHECK(bad.status == 1);
    CHECK(bad.out.find("w(x) by Thread1 is not permitted: the possible mode was EX(Thread0); to "
                       "enter EX(Thread1) (edge EX(Thread0) -v==1-> EX(Thread1)), Thread0 must "
                       "vw(v=1) after its accesses in EX(Thread0) and Thread1 must vr(v=1) before "
                       "writing x") != std::string::npos);
    CHECK(bad.out.find("SUMMARY: 4 events; enforce: 1 violation; hb: 1 race") != std::string::npos);
}

TEST_CASE("sfgc trace enforces queue labels: the work queue admitted, a stolen task violates") {
    Run ok = sfgc("trace specs/traces/work_queue.std --spec specs/extensions/work_queue.sfg "
                  "--analysis enforce,hb,fasttrack,goldilocks");
    CHECK(ok.status == 0);
    CHECK(ok.out.find("SUMMARY: 8 events; enforce: 0 violations; hb: 0 races; fasttrack: 0 races; "
                      "goldilocks: 0 races") != std::string::npos);
    Run bad = sfgc("trace specs/traces/work_queue_stolen.std --spec "
                   "specs/extensions/work_queue.sfg --analysis enforce,hb");
    CHECK(bad.status == 1);
    CHECK(bad.out.find("w(task) by w2 is not permitted") != std::string::npos);
    CHECK(bad.out.find("deq(q,task)") != std::string::npos);
    CHECK(bad.out.find("SUMMARY: 6 events; enforce: 1 violation; hb: 1 race") != std::string::npos);
    // A deq with nothing put in: ill-formed, exit 2 at its line.
    const fs::path t = scratch() / "deq_first.std";
    std::ofstream(t) << "T0|w(x)\nT1|deq(q,x)\n";
    Run ill = sfgc("trace '" + t.string() + "'");
    CHECK(ill.status == 2);
    CHECK(ill.err == t.string() + ":2:1: error: thread T1 takes x out of queue q, which holds no "
                                  "x put in before\n");
}

TEST_CASE("queues in SLPs: sfgc compress, then sfgc trace on the .slp gives the flat verdicts") {
    // A JSON report without its line numbers (an SLP has none).
    auto no_lines = [](const std::string& json) {
        return std::regex_replace(json, std::regex(",?\n *\"(with_)?line\": [0-9]+"), "");
    };
    for (const std::string stem : {"work_queue", "work_queue_stolen"}) {
        CAPTURE(stem);
        const std::string std_file = "specs/traces/" + stem + ".std";
        for (const std::string algorithm : {"sequitur", "repair"}) {
            CAPTURE(algorithm);
            const fs::path slp = scratch() / (stem + ".slp");
            Run c = sfgc("compress " + std_file + " -o '" + slp.string() + "' --algorithm " +
                         algorithm);
            REQUIRE(c.status == 0);
            const std::string rest = " --spec specs/extensions/work_queue.sfg --analysis "
                                     "enforce,hb,fasttrack,goldilocks,eraser --format json";
            Run flat = sfgc("trace " + std_file + rest);
            CHECK(flat.status == (stem == "work_queue" ? 0 : 1));
            const std::string want = no_lines(flat.out);
            for (const std::string mode : {"auto", "grammar", "expand"}) {
                CAPTURE(mode);
                Run r = sfgc("trace '" + slp.string() + "'" + rest + " --slp-mode " + mode);
                CHECK(r.status == flat.status);
                CHECK(r.out == want);
            }
            // And back: the same events.
            const fs::path back = scratch() / (stem + ".back.std");
            REQUIRE(sfgc("decompress '" + slp.string() + "' -o '" + back.string() + "'").status ==
                    0);
            Run again = sfgc("trace '" + back.string() + "'" + rest);
            CHECK(again.status == flat.status);
            CHECK(no_lines(again.out) == want);
        }
    }
}

// Programs hand objects over with enq/deq (docs/programs.md): sfgc check enforces queue labels
// on the enq(q,o) / deq(q,o) events its executions record.
TEST_CASE("sfgc check enforces queue labels: the pool conforms, a stolen task violates") {
    fs::path program = scratch() / "queue_program.sfg";
    std::ofstream(program) << "threads a, b;\nqueue q;\nvar x : EX(a) |> ^q EX(b);\n"
                              "program p { thread a { x = 1; } thread b { skip; } }\n";
    CHECK(sfgc("check '" + program.string() + "'").status == 0);

    Run ok = sfgc("check specs/programs/work_queue/work_queue.sfg");
    CHECK(ok.status == 0);
    CHECK(ok.out.find("program pool: 2 executions, 2 classes, 2 final states, complete") !=
          std::string::npos);

    const fs::path dir = scratch() / "queue_cex";
    Run bad = sfgc("check specs/programs/work_queue_stolen/work_queue_stolen.sfg --trace-out '" +
                   dir.string() + "'");
    CHECK(bad.status == 1);
    CHECK(bad.out.find("violation on task") != std::string::npos);
    CHECK(bad.out.find("race on task") != std::string::npos);
    // sfgc trace replays the counterexample to the same violation.
    const fs::path cex = dir / "stolen-violation-task.std";
    Run t = sfgc("trace '" + cex.string() +
                 "' --spec specs/programs/work_queue_stolen/work_queue_stolen.sfg "
                 "--analysis enforce");
    CHECK(t.status == 1);
    CHECK(t.out.find("ERROR: discipline of task violated (enforce)") != std::string::npos);

    // JSON steps name the queue item; --shard parts carry them and merge to the single run.
    const std::string divided = " --task-budget 1 --split-above 1";
    Run j = sfgc("check specs/programs/work_queue_stolen/work_queue_stolen.sfg --format json" +
                 divided);
    CHECK(j.status == 1);
    CHECK(j.out.find("enq(q,task)") != std::string::npos);
    std::string parts;
    for (int k = 1; k <= 3; ++k) {
        const fs::path part = scratch() / ("queue_part_" + std::to_string(k) + ".json");
        Run p = sfgc("check specs/programs/work_queue_stolen/work_queue_stolen.sfg --shard " +
                     std::to_string(k) + "/3 --format json" + divided);
        CHECK(p.status != 2);
        std::ofstream(part) << p.out;
        parts += " '" + part.string() + "'";
    }
    Run merged = sfgc("check --merge" + parts + " --format json");
    CHECK(merged.status == 1);
    CHECK(merged.out == j.out);
}

TEST_CASE("sfgc check: a deq whose object stays behind another is a deadlock") {
    const fs::path dir = scratch() / "queue_deadlock";
    Run r = sfgc("check specs/programs/queue_wrong_order/queue_wrong_order.sfg --trace-out '" +
                 dir.string() + "'");
    CHECK(r.status == 1);
    CHECK(r.out.find("deadlock at line 8: deadlock: worker waits at line 8: deq(q,b), a first "
                     "in q") != std::string::npos);
    // The step table and the counterexample trace show the queue events as traces spell them.
    CHECK(r.out.find("enq(q,a) :7") != std::string::npos);
    const fs::path cex = dir / "wrong_order-deadlock-8.std";
    std::ifstream in(cex);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("main|enq(q,a)|wrong_order:7\nmain|enq(q,b)|wrong_order:7\n") !=
          std::string::npos);
    // sfgc trace reads it: well-formed, a hand-off without a race.
    Run t = sfgc("trace '" + cex.string() + "' --analysis hb");
    CHECK(t.status == 0);
}

TEST_CASE("sfgc check --emit-promela: a queue without a bound is refused at its line:col") {
    fs::path program = scratch() / "queue_unbounded.sfg";
    std::ofstream(program) << "threads a;\nqueue q;\nvar x;\n"
                              "program p { thread a { while (x == 0) { enq q x; } } }\n";
    Run r = sfgc("check '" + program.string() + "' --emit-promela -");
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == program.string() +
                       ":4:41: error: cannot export 'enq q x': an enq inside a while loop has no "
                       "bound, and a Spin channel has a fixed capacity\n");
    Run ok = sfgc("check specs/programs/work_queue/work_queue.sfg --emit-promela -");
    CHECK(ok.status == 0);
    CHECK(ok.out.find("chan q_q = [3] of { int };") != std::string::npos);
}

TEST_CASE("sfgc check enforces value labels: the vflag handshake, and a thread going too early") {
    CHECK(sfgc("check specs/programs/vflag_handshake/vflag_handshake.sfg").status == 0);
    const fs::path dir = scratch() / "vflag_cex";
    Run r = sfgc("check specs/programs/vflag_too_early/vflag_too_early.sfg --trace-out '" +
                 dir.string() + "'");
    CHECK(r.status == 1);
    CHECK(r.out.find("violation on x") != std::string::npos);
    // The counterexample shows the values, and sfgc trace replays it to the same violation.
    const fs::path cex = dir / "too_early-violation-x.std";
    std::ifstream in(cex);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("Thread1|vr(v=0)|too_early:8") != std::string::npos);
    Run t = sfgc("trace '" + cex.string() +
                 "' --spec specs/programs/vflag_too_early/vflag_too_early.sfg --analysis enforce");
    CHECK(t.status == 1);
    CHECK(t.out.find("ERROR: discipline of x violated (enforce)") != std::string::npos);
}

TEST_CASE("chapter 5 misuse: errors at line:col, exit 2") {
    Run r = sfgc("specs/errors/lock_mode_not_a_lock.sfg");
    CHECK(r.status == 2);
    CHECK(r.err.find("specs/errors/lock_mode_not_a_lock.sfg:3:14: error: 'v' is a volatile, not "
                     "a lock\nvar x : LOCK(v: t0, t1);\n             ^\n") != std::string::npos);
}
