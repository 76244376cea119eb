// Misuse of the live runtime (docs/enforcers.md) is a `misuse` finding naming the object, never a
// silent miss or a crash: threads sfg did not start, names of another kind, ill-formed
// operations, a second session. And recording: the trace replays to the same findings.
#include "replay_trace.hpp"
#include "support.hpp"

#include "bank.sfg.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace sfg::testing;

namespace {

bool has(const std::vector<sfg::finding>& fs, const std::string& kind, const std::string& var,
         const std::string& text) {
    for (const sfg::finding& f : fs)
        if (f.kind == kind && f.var == var && f.message.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST_CASE("a std::thread touching an sfg object is a misuse naming the object") {
    sfg::session s(bank::spec(), collecting());
    sfg::shared<int> balance("balance", 0);
    std::thread t([&] { balance = 1; });
    t.join();
    const auto fs = s.findings();
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].kind == "misuse");
    CHECK(fs[0].analysis.empty());
    CHECK(fs[0].var == "balance");
    CHECK(fs[0].message.find("not started through sfg::thread") != std::string::npos);
}

TEST_CASE("a name the spec gives another kind of object") {
    sfg::session s(bank::spec(), collecting());
    sfg::mutex wrong("balance"); // balance is a variable of bank.sfg
    sfg::shared<int> m("m", 0);  // m is its lock
    { std::lock_guard g(wrong); }
    m = 1;
    const auto fs = s.findings();
    CHECK(has(fs, "misuse", "balance", "lock 'balance' has the name of a variable of bank.sfg"));
    CHECK(has(fs, "misuse", "m", "variable 'm' has the name of a lock of bank.sfg"));
}

TEST_CASE("unlocking a mutex not held; locking it twice") {
    sfg::session s(bank::spec(), collecting());
    sfg::mutex m("m");
    m.unlock(); // not held: reported, and nothing happens
    CHECK(has(s.findings(), "misuse", "m", "unlocked by a thread that does not hold it"));
    m.lock();
    CHECK_THROWS_AS(m.lock(), sfg::finding_error); // std::mutex would deadlock
    CHECK(has(s.findings(), "misuse", "m", "locked again"));
    m.unlock();
    CHECK(m.try_lock());
    m.unlock();
}

TEST_CASE("a second session is a misuse; sessions one after the other are fine") {
    {
        sfg::session s(collecting("hb"));
        CHECK_THROWS_AS(sfg::session(collecting("hb")), sfg::finding_error);
        CHECK(has(s.findings(), "misuse", "session", "second"));
    }
    sfg::session again(collecting("hb"));
    CHECK(again.findings().empty());
}

TEST_CASE("ill-formed operations: a thread name used twice") {
    sfg::session s(collecting("hb"));
    {
        sfg::thread a("worker", [] {});
    }
    sfg::thread b("worker", [] {}); // forks a thread that has already ended
    b.join();
    CHECK(has(s.findings(), "misuse", "worker", "ill-formed"));
}

TEST_CASE("bad options are exceptions with a clear message") {
    sfg::session_options o;
    o.analyses = "hb,nosuch";
    CHECK_THROWS_WITH_AS(sfg::session{o}, doctest::Contains("unknown analysis 'nosuch'"),
                         std::invalid_argument);
    o = {};
    o.trace_path = "/nonexistent/dir/trace.std";
    CHECK_THROWS_WITH_AS(sfg::session{o}, doctest::Contains("cannot write the trace"),
                         std::invalid_argument);
    o = {};
    o.main_thread = "two words";
    CHECK_THROWS_AS(sfg::session{o}, std::invalid_argument);
    sfg::session fine(collecting("hb")); // the failed ones left nothing open
}

TEST_CASE("objects used with no session: reported on stderr, the program goes on") {
    sfg::shared<int> x("x", 1);
    x = 2;
    CHECK(x == 2);
    sfg::thread t("t", [&] { x = 3; });
    t.join();
    CHECK(x == 3);
}

TEST_CASE("the recorded trace is well-formed and replays to the same findings") {
    const std::string path = (scratch() / "bank_broken.std").string();
    std::vector<sfg::finding> live;
    std::uint64_t events = 0;
    {
        sfg::session_options o = collecting("enforce,hb,fasttrack,goldilocks,eraser");
        o.trace_path = path;
        sfg::session s(bank::spec(), o);
        sfg::mutex m("m");
        sfg::shared<int> balance("balance", 0);
        balance = 10;
        sfg::thread_group g;
        g.add("deposit", [&] {
            for (int i = 0; i < 30; ++i) {
                std::lock_guard l(m);
                balance = balance + 1;
            }
        });
        g.add("withdraw", [&] {
            for (int i = 0; i < 30; ++i)
                balance = balance - 1;
        });
        g.start();
        g.join();
        live = s.findings();
        events = s.events();
    }
    REQUIRE(!live.empty());
    // Replay as `sfgc trace FILE --spec bank.sfg` does.
    std::ifstream in(std::string(SFG_SOURCE_DIR) + "/specs/thesis/bank.sfg");
    std::stringstream text;
    text << in.rdbuf();
    sfg::SourceFile source("bank.sfg", text.str());
    sfg::Diagnostics diags;
    auto spec = sfg::compile_spec(source, diags);
    REQUIRE(spec);
    sfg::AnalysisInputs inputs;
    for (const auto& v : spec->variables)
        if (v.net)
            inputs.disciplines.emplace_back(v.name, &*v.net);
    const Replay replay(path, {"enforce", "hb", "fasttrack", "goldilocks", "eraser"}, inputs);
    CHECK(replay.result.events == events);
    Seen replayed;
    std::vector<std::pair<std::string, std::string>> who;
    for (const auto& a : replay.analyses)
        for (const sfg::Finding& f : a->findings(replay.syms)) {
            replayed.emplace_back(sfg::to_string(f.kind), std::string(a->info().name), f.var);
            who.emplace_back(replay.syms.threads.name(f.access.thread),
                             sfg::to_string(f.access.op));
        }
    // Same findings; the live ones are in event order, the replayed ones by analysis.
    Seen live_seen = seen(live);
    std::vector<std::pair<std::string, std::string>> live_who;
    for (const auto& f : live)
        live_who.emplace_back(f.thread, f.op);
    auto sorted = [](auto v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    CHECK(sorted(replayed) == sorted(live_seen));
    CHECK(sorted(who) == sorted(live_who));
    // And as a user does it: sfgc trace exits 1 (findings) and names the same events' count.
    const std::string cmd = std::string(SFGC_PATH) + " trace '" + path + "' --spec '" +
                            SFG_SOURCE_DIR + "/specs/thesis/bank.sfg' --analysis enforce,hb > '" +
                            path + ".out'";
    const int status = std::system(cmd.c_str());
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    std::ifstream report(path + ".out");
    std::stringstream rep;
    rep << report.rdbuf();
    CHECK(rep.str().find("SUMMARY: " + std::to_string(events) + " events") != std::string::npos);
    // The set fork and join are one event each.
    std::ifstream trace(path);
    std::stringstream t;
    t << trace.rdbuf();
    CHECK(t.str().find("main|fork(deposit,withdraw)") != std::string::npos);
    CHECK(t.str().find("main|join(deposit,withdraw)") != std::string::npos);
}

namespace {

// main and a write x with nothing between them: one race, whatever the order.
void racy() {
    sfg::shared<int> x("x", 0);
    sfg::thread a("a", [&] { x = 1; });
    x = 2;
    a.join();
}

std::string slurp_fd(int fd) {
    std::string out;
    char buf[4096];
    ::lseek(fd, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        out.append(buf, static_cast<std::size_t>(n));
    return out;
}

} // namespace

TEST_CASE("policy log: the report on standard error, and collected") {
    std::FILE* err = std::tmpfile();
    REQUIRE(err);
    std::fflush(stderr);
    const int saved = ::dup(2);
    ::dup2(::fileno(err), 2);
    std::size_t found = 0;
    {
        sfg::session_options o; // policy log: the default
        o.analyses = "hb";
        sfg::session s(o);
        racy();
        found = s.findings().size();
    }
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    CHECK(found == 1);
    CHECK(slurp_fd(::fileno(err)).find("WARNING: data race on x (hb)") != std::string::npos);
    std::fclose(err);
}

TEST_CASE("policy abort: the report, then abort()") {
    std::FILE* err = std::tmpfile();
    REQUIRE(err);
    std::fflush(stderr);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::dup2(::fileno(err), 2);
        sfg::session_options o;
        o.policy = sfg::on_finding::abort;
        o.analyses = "hb";
        sfg::session s(o);
        racy();
        std::_Exit(0); // not reached
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);
    CHECK(slurp_fd(::fileno(err)).find("WARNING: data race on x (hb)") != std::string::npos);
    std::fclose(err);
}

TEST_CASE("SFG_OPTIONS overrides the options in the code; SFG_TRACE records") {
    const std::string path = (scratch() / "env_trace.std").string();
    std::filesystem::remove(path);
    ::setenv("SFG_OPTIONS", "policy=collect analyses=hb:main_thread=boss", 1);
    ::setenv("SFG_TRACE", path.c_str(), 1);
    {
        sfg::session_options o; // policy log, three analyses, "main": all overridden
        sfg::session s(o);
        racy();
        const auto fs = s.findings();
        REQUIRE(fs.size() == 1); // hb only
        CHECK(fs[0].analysis == "hb");
    }
    ::unsetenv("SFG_TRACE");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("boss|fork(a)") != std::string::npos);
    for (const char* bad : {"policy=loud", "nokey", "colour=red"}) {
        CAPTURE(bad);
        ::setenv("SFG_OPTIONS", bad, 1);
        CHECK_THROWS_WITH_AS(sfg::session{}, doctest::Contains("SFG_OPTIONS"),
                             std::invalid_argument);
    }
    ::unsetenv("SFG_OPTIONS");
}
