// Deterministic blocks in live programs (docs/determinism.md, "Live programs"): sfg::deterministic
// marks a block, the `singletrack` analysis checks it as the program runs (SingleTrack, Sadowski,
// Freund and Flanagan, ESOP 2009), the recorded trace replays to the same findings, and a nested
// block is a misuse. Each broken program fails on every run, whatever the schedule: conflict
// freedom and serializability are judged on the order of the events, not on a race's outcome.
#include "replay_trace.hpp"
#include "support.hpp"

#include "bank.sfg.hpp"

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/report.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <type_traits>
#include <unistd.h>

using namespace sfg::testing;

static_assert(!std::is_copy_constructible_v<sfg::deterministic> &&
              !std::is_move_constructible_v<sfg::deterministic> &&
              !std::is_copy_assignable_v<sfg::deterministic>);

namespace {

using Array = std::vector<std::unique_ptr<sfg::shared<int>>>;

// 0..15 in an order whose last element, the first pivot, is the median: the first partition
// puts it at index 7, inside the array, so that both halves are not empty.
const std::vector<int> unsorted{9, 3, 14, 1, 12, 6, 15, 0, 11, 4, 13, 2, 10, 5, 8, 7};

Array make_array() {
    Array a;
    for (std::size_t i = 0; i < unsorted.size(); ++i)
        a.push_back(std::make_unique<sfg::shared<int>>("a" + std::to_string(i), unsorted[i]));
    return a;
}

void swap_elements(Array& a, int i, int j) {
    const int x = a[static_cast<std::size_t>(i)]->load();
    a[static_cast<std::size_t>(i)]->store(a[static_cast<std::size_t>(j)]->load());
    a[static_cast<std::size_t>(j)]->store(x);
}

// Lomuto's partition of a[lo..hi] around a[hi]: the pivot's final place.
int partition(Array& a, int lo, int hi) {
    const int pivot = a[static_cast<std::size_t>(hi)]->load();
    int i = lo;
    for (int j = lo; j < hi; ++j)
        if (a[static_cast<std::size_t>(j)]->load() < pivot)
            swap_elements(a, i++, j);
    swap_elements(a, i, hi);
    return i;
}

void sort_serial(Array& a, int lo, int hi) {
    if (lo >= hi)
        return;
    const int p = partition(a, lo, hi);
    sort_serial(a, lo, p - 1);
    sort_serial(a, p + 1, hi);
}

// SingleTrack's Figure 1, quicksort_helper: partition, then sort the halves in two forked
// threads and join them (below `depth` levels, serially). `overlap` 1 is the off-by-one: each
// half keeps the pivot's element, which both children then touch.
void quicksort_helper(Array& a, int lo, int hi, const std::string& name, int depth, int overlap) {
    if (hi <= lo)
        return;
    if (depth == 0)
        return sort_serial(a, lo, hi);
    const int p = partition(a, lo, hi);
    sfg::thread t1(name + "l", [&] {
        quicksort_helper(a, lo, p - 1 + overlap, name + "l", depth - 1, overlap);
    });
    sfg::thread t2(name + "r", [&] {
        quicksort_helper(a, p + 1 - overlap, hi, name + "r", depth - 1, overlap);
    });
    t1.join();
    t2.join();
}

// Figure 1, quicksort: the block, and in it the lock of the array (`synchronized (a)`), taken by
// the block's own thread only. Returns whether the array ends sorted.
bool quicksort(bool off_by_one) {
    Array a = make_array();
    sfg::mutex lock("a");
    {
        sfg::deterministic block;
        std::lock_guard g(lock);
        quicksort_helper(a, 0, static_cast<int>(a.size()) - 1, "qs", 2, off_by_one ? 1 : 0);
    }
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i]->load() != static_cast<int>(i))
            return false;
    return true;
}

std::vector<sfg::finding> of(const std::vector<sfg::finding>& fs, const std::string& analysis) {
    std::vector<sfg::finding> out;
    for (const sfg::finding& f : fs)
        if (f.analysis == analysis)
            out.push_back(f);
    return out;
}

bool is_element(const std::string& var) {
    for (std::size_t i = 0; i < unsorted.size(); ++i)
        if (var == "a" + std::to_string(i))
            return true;
    return false;
}

} // namespace

TEST_CASE("quicksort (SingleTrack Figure 1): disjoint halves are deterministic; an off-by-one is "
          "a conflict, every run") {
    for (int run = 0; run < 10; ++run) {
        CAPTURE(run);
        {
            sfg::session s(collecting("hb,singletrack"));
            CHECK(quicksort(false));
            CHECK(s.findings().empty());
        }
        sfg::session s(collecting("hb,singletrack"));
        quicksort(true);
        const auto fs = s.findings();
        // One block: one conflict, on an element both children touched; hb sees the race too.
        const auto st = of(fs, "singletrack");
        REQUIRE(st.size() == 1);
        CHECK(st[0].kind == "conflict");
        CHECK(is_element(st[0].var));
        CHECK(st[0].thread.rfind("qs", 0) == 0); // a child, not the block's own thread
        CHECK((st[0].op == "r" || st[0].op == "w"));
        CHECK(st[0].message.find("ERROR: conflict on " + st[0].var +
                                 " in the deterministic block of event ") != std::string::npos);
        CHECK(st[0].message.find("neither is ordered before the other") != std::string::npos);
        CHECK(st[0].message.find("determinism_test.cpp:") != std::string::npos);
        CHECK(!of(fs, "hb").empty());
        CHECK(of(fs, "hb").size() + 1 == fs.size());
    }
}

TEST_CASE("the bank account in a block: conforming and race-free, but which child locks first is "
          "up to the scheduler: a conflict on the lock") {
    for (int broken = 0; broken < 2; ++broken) {
        for (int run = 0; run < 10; ++run) {
            CAPTURE(broken);
            CAPTURE(run);
            sfg::session s(bank::spec(), collecting("enforce,hb,singletrack"));
            sfg::mutex m("m");
            sfg::shared<int> balance("balance", 100);
            sfg::shared<int> deposited("deposited", 0), withdrawn("withdrawn", 0);
            {
                sfg::deterministic block;
                balance = 100;
                {
                    sfg::thread deposit("deposit", [&] {
                        if (broken) { // the sum under the lock, in the order the threads get it
                            std::lock_guard g(m);
                            balance = balance + 10;
                        } else { // each child its own result, summed after the join
                            deposited = 10;
                        }
                    });
                    sfg::thread withdraw("withdraw", [&] {
                        if (broken) {
                            std::lock_guard g(m);
                            balance = balance - 20;
                        } else {
                            withdrawn = 20;
                        }
                    });
                }
                if (!broken)
                    balance = balance + deposited - withdrawn;
            }
            CHECK(balance == 90);
            const auto fs = s.findings();
            if (!broken) {
                CHECK(fs.empty());
                continue;
            }
            // enforce and hb: nothing (the lock orders the accesses as bank.sfg says).
            REQUIRE(fs.size() == 1);
            CHECK(fs[0].analysis == "singletrack");
            CHECK(fs[0].kind == "conflict");
            CHECK(fs[0].var == "m");
            CHECK(fs[0].op == "acq"); // the second child's acq, after the first one's rel
            CHECK((fs[0].thread == "deposit" || fs[0].thread == "withdraw"));
            CHECK(fs[0].message.find("inside a block lock m orders nothing") != std::string::npos);
        }
    }
}

namespace {

// Two locked updates of `sum` by two children of a block (the conflict on m above), under
// `policy`; returns the findings, and the finding_errors that join() rethrew.
std::vector<sfg::finding> locked_sum(sfg::on_finding policy, std::vector<sfg::finding>& thrown) {
    sfg::session_options o = collecting("singletrack");
    o.policy = policy;
    sfg::session s(o);
    sfg::mutex m("m");
    sfg::shared<int> sum("sum", 0);
    {
        sfg::deterministic block;
        sfg::thread a("a", [&] {
            std::lock_guard g(m);
            sum = sum + 1;
        });
        sfg::thread b("b", [&] {
            std::lock_guard g(m);
            sum = sum + 2;
        });
        for (sfg::thread* t : {&a, &b}) {
            try {
                t->join();
            } catch (const sfg::finding_error& e) {
                thrown.push_back(e.details());
            }
        }
    }
    return s.findings();
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

TEST_CASE("singletrack under every policy: collect, log, throw_error, abort") {
    std::vector<sfg::finding> thrown;
    const auto collected = locked_sum(sfg::on_finding::collect, thrown);
    REQUIRE(collected.size() == 1);
    CHECK(collected[0].var == "m");
    CHECK(thrown.empty());

    // log: the report on standard error, and collected.
    std::FILE* err = std::tmpfile();
    REQUIRE(err);
    std::fflush(stderr);
    const int saved = ::dup(2);
    ::dup2(::fileno(err), 2);
    const auto logged = locked_sum(sfg::on_finding::log, thrown);
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    CHECK(
        slurp_fd(::fileno(err)).find("ERROR: conflict on m in the deterministic block of event") !=
        std::string::npos);
    std::fclose(err);
    REQUIRE(logged.size() == 1);
    CHECK(logged[0].kind == "conflict");
    CHECK(thrown.empty());

    // throw_error: the second acq(m) throws in its thread; join() rethrows it.
    const auto at_once = locked_sum(sfg::on_finding::throw_error, thrown);
    REQUIRE(thrown.size() == 1);
    CHECK(thrown[0].kind == "conflict");
    CHECK(thrown[0].analysis == "singletrack");
    CHECK(thrown[0].var == "m");
    CHECK(thrown[0].op == "acq");
    REQUIRE(at_once.size() == 1);
    CHECK(at_once[0].message == thrown[0].message);

    // abort: the report, then abort().
    err = std::tmpfile();
    REQUIRE(err);
    std::fflush(stderr);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::dup2(::fileno(err), 2);
        std::vector<sfg::finding> ignored;
        locked_sum(sfg::on_finding::abort, ignored);
        std::_Exit(0); // not reached
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);
    CHECK(slurp_fd(::fileno(err)).find("ERROR: conflict on m in the deterministic block") !=
          std::string::npos);
    std::fclose(err);
}

namespace {

// A block reads x, another thread writes x (or y), the block writes x. The interleaving is forced
// with a std::atomic, which sfg does not see (it orders nothing for the analyses); each thread
// asks the session for its events before handing over, which places its queued accesses in the
// order there (docs/enforcers.md, "Ordering guarantees").
std::vector<sfg::finding> interleaved(sfg::on_finding policy, bool same_variable,
                                      std::optional<sfg::finding>& thrown) {
    sfg::session_options o = collecting("singletrack");
    o.policy = policy;
    sfg::session s(o);
    sfg::shared<int> x("x", 0), y("y", 0);
    std::atomic<int> step{0};
    const auto wait_for = [&](int n) {
        while (step.load() != n)
            std::this_thread::yield();
    };
    sfg::thread other("other", [&] {
        wait_for(1);
        (same_variable ? x : y) = 5; // between the block's two accesses
        (void)s.events();
        step = 2;
    });
    {
        sfg::deterministic block;
        const int v = x;
        (void)s.events();
        step = 1;
        wait_for(2);
        try {
            x = v + 1;
        } catch (const sfg::finding_error& e) { // throw_error: after the store
            thrown = e.details();
        }
    }
    other.join();
    return of(s.findings(), "singletrack");
}

} // namespace

TEST_CASE("a block interleaved with an outside write of its variable: a cycle") {
    for (const auto policy : {sfg::on_finding::collect, sfg::on_finding::throw_error}) {
        for (int run = 0; run < 10; ++run) {
            CAPTURE(run);
            CAPTURE(policy == sfg::on_finding::collect);
            std::optional<sfg::finding> thrown;
            CHECK(interleaved(policy, false, thrown).empty()); // the other thread writes y
            CHECK(!thrown);
            const auto fs = interleaved(policy, true, thrown);
            REQUIRE(fs.size() == 1);
            CHECK(fs[0].kind == "cycle");
            CHECK(fs[0].var.empty());
            CHECK(fs[0].thread == "main");
            CHECK(fs[0].op == "w"); // the block's write closes it
            CHECK(fs[0].message.find("ERROR: cycle of transactions") != std::string::npos);
            CHECK(fs[0].message.find("through the deterministic block of event") !=
                  std::string::npos);
            CHECK(fs[0].message.find("Write of x by thread main") != std::string::npos);
            if (policy == sfg::on_finding::throw_error) {
                REQUIRE(thrown);
                CHECK(thrown->kind == "cycle");
                CHECK(thrown->message == fs[0].message);
            }
        }
    }
}

TEST_CASE("the recorded trace of the quicksort replays to the same findings, as sfgc trace "
          "prints them") {
    const std::string path = (scratch() / "quicksort.std").string();
    std::vector<sfg::finding> live;
    std::uint64_t events = 0;
    {
        sfg::session_options o = collecting("hb,singletrack");
        o.trace_path = path;
        sfg::session s(o);
        quicksort(true);
        live = s.findings();
        events = s.events();
    }
    REQUIRE(of(live, "singletrack").size() == 1);
    // Replayed in-process, as `sfgc trace FILE --analysis hb,singletrack` does.
    const Replay replay(path, {"hb", "singletrack"});
    CHECK(replay.result.events == events);
    CHECK(!replay.analyses[1]->stream_error());
    // The same findings in event order, each with the message the session gave: the replay's
    // report without the trace's line numbers (a live event has none; both name the source).
    const std::vector<std::string> want =
        replay.in_event_order([&](std::string_view a, sfg::Finding f) {
            f.access.line = 0;
            if (f.with)
                f.with->line = 0;
            return std::string(a) + " " + sfg::to_string(f.kind) + " " + f.var + " " +
                   replay.syms.threads.name(f.access.thread) + " " + sfg::to_string(f.access.op) +
                   "\n" + sfg::format_finding(f, a, replay.syms, "");
        });
    std::vector<std::string> got;
    for (const sfg::finding& f : live)
        got.push_back(f.analysis + " " + f.kind + " " + f.var + " " + f.thread + " " + f.op + "\n" +
                      f.message);
    CHECK(got == want);

    // The trace has the block's begin (with its place in the source) and end.
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::size_t begin = text.str().find("\nmain|begin|");
    REQUIRE(begin != std::string::npos);
    CHECK(text.str()
              .substr(begin, text.str().find('\n', begin + 1) - begin)
              .find("determinism_test.cpp:") != std::string::npos);
    CHECK(text.str().find("\nmain|end\n") != std::string::npos);

    // And as a user does it: sfgc trace exits 1 with the same conflict.
    const sfg::finding conflict = of(live, "singletrack")[0];
    const std::string cmd = std::string(SFGC_PATH) + " trace '" + path +
                            "' --analysis singletrack > '" + path + ".out'";
    const int status = std::system(cmd.c_str());
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    std::ifstream report(path + ".out");
    std::stringstream rep;
    rep << report.rdbuf();
    CHECK(rep.str().find(conflict.message.substr(0, conflict.message.find('\n', 19))) !=
          std::string::npos); // its header line
    CHECK(rep.str().find("SUMMARY: " + std::to_string(events) +
                         " events; singletrack: 1 conflict, 0 cycles") != std::string::npos);
}

TEST_CASE("a block nested in a thread's open block is a misuse; the open block goes on") {
    const std::string path = (scratch() / "nested.std").string();
    {
        sfg::session_options o = collecting("hb,singletrack");
        o.trace_path = path;
        sfg::session s(o);
        sfg::shared<int> x("x", 0);
        {
            sfg::deterministic outer;
            x = 1;
            {
                sfg::deterministic inner; // SingleTrack's blocks do not nest
                x = 2;
            }
            x = 3;
        }
        {
            sfg::deterministic next; // the thread's block is closed: fine
            x = 4;
        }
        const auto fs = s.findings();
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].kind == "misuse");
        CHECK(fs[0].analysis.empty());
        CHECK(fs[0].var == "deterministic");
        CHECK(fs[0].thread == "main");
        CHECK(fs[0].op == "begin");
        CHECK(fs[0].message.find("begins a deterministic block inside its own block of event 1 "
                                 "(blocks do not nest)") != std::string::npos);
    }
    // The refused begin is not in the trace: it is well-formed for singletrack.
    const std::string cmd =
        std::string(SFGC_PATH) + " trace '" + path + "' --analysis singletrack > /dev/null";
    const int status = std::system(cmd.c_str());
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);

    // throw_error: the inner block's constructor throws; the outer block is not disturbed.
    sfg::session_options o = collecting("singletrack");
    o.policy = sfg::on_finding::throw_error;
    sfg::session s(o);
    {
        sfg::deterministic outer;
        try {
            sfg::deterministic inner;
            FAIL("a nested block must throw under throw_error");
        } catch (const sfg::finding_error& e) {
            CHECK(e.details().kind == "misuse");
            CHECK(e.details().var == "deterministic");
        }
    }
    { sfg::deterministic again; }
    CHECK(s.findings().size() == 1);
}

TEST_CASE("a block's misuses: another thread, no session, a block that outlives its session") {
    // Begun by a std::thread, which sfg did not start: a misuse, as for any other object.
    {
        sfg::session s(collecting("singletrack"));
        std::thread t([] { sfg::deterministic block; });
        t.join();
        const auto fs = s.findings();
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].kind == "misuse");
        CHECK(fs[0].var == "deterministic");
        CHECK(fs[0].message.find("not started through sfg::thread") != std::string::npos);
    }
    // Ended by another thread of the session than the one that began it.
    {
        sfg::session s(collecting("singletrack"));
        auto block = std::make_unique<sfg::deterministic>();
        sfg::thread t("ender", [&] { block.reset(); });
        t.join();
        const auto fs = s.findings();
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].kind == "misuse");
        CHECK(fs[0].thread == "ender");
        CHECK(fs[0].message.find("deterministic block of thread main ended by thread ender") !=
              std::string::npos);
    }
    // With no session: reported on standard error, the program goes on.
    { sfg::deterministic block; }
    // Begun in one session, ended in the next: no block of that session is open.
    {
        std::optional<sfg::session> first(std::in_place, collecting("singletrack"));
        auto block = std::make_unique<sfg::deterministic>();
        first.reset();
        sfg::session second(collecting("singletrack"));
        block.reset();
        const auto fs = second.findings();
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].kind == "misuse");
        CHECK(fs[0].op == "end");
        CHECK(fs[0].message.find("thread main ends a deterministic block outside one") !=
              std::string::npos);
        sfg::deterministic fine; // and the thread may open one
    }
}
