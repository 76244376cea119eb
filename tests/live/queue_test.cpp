// sfg::queue in the live runtime (thesis §5.1, q(o); docs/enforcers.md): push records enq(q,o)
// before o can be taken, pop and try_pop record deq(q,o) after taking it, and the work queue
// `task : EX(main) ▷^q [EX(each workers)]^q` is enforced on them. The queue's own lock is not an
// event: the analyses see the enq → deq edge and nothing else of it.
#include "live/spec_impl.hpp"
#include "support.hpp"

#include "sfg/compiler/compile.hpp"

#include "work_queue.sfg.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>

using namespace sfg::testing;

namespace {

struct Task {
    int step = 0;
    long sum = 0;
};

// specs/extensions/work_queue.sfg: main fills the task and puts it into q; w1 and w2 each take
// it, do one step and put it back, until `steps` are done; a worker that takes the finished task
// puts it back and stops. The worker of the last step writes `result` (no spec variable: checked
// for races only), which main reads after the join. With `blocks`, each step is a deterministic
// block (docs/determinism.md).
long pool(int steps, bool blocks = false) {
    sfg::queue<Task> q("q");
    sfg::shared<Task> task("task");
    sfg::shared<long> result("result", 0);
    task.store({0, 0});
    q.push(task);
    const auto work = [&] {
        for (;;) {
            std::optional<sfg::deterministic> block;
            if (blocks)
                block.emplace();
            sfg::shared<Task>& t = q.pop();
            Task v = t.load();
            if (v.step == steps) {
                q.push(t);
                return;
            }
            ++v.step;
            v.sum += v.step;
            t.store(v);
            if (v.step == steps)
                result.store(v.sum);
            q.push(t);
        }
    };
    sfg::thread_group workers;
    workers.add("w1", work);
    workers.add("w2", work);
    workers.start();
    workers.join();
    return result;
}

// w1 takes the task and writes it; w2 reads it without taking it, once w1 has written it (a
// std::atomic that sfg does not see orders the two, so the read and the write race).
void touch_untaken() {
    sfg::queue<Task> q("q");
    sfg::shared<Task> task("task");
    task.store({1, 1});
    q.push(task);
    std::atomic<bool> written{false};
    sfg::thread_group workers;
    workers.add("w1", [&] {
        sfg::shared<Task>& t = q.pop();
        t.store({2, 3});
        written.store(true);
    });
    workers.add("w2", [&] {
        while (!written.load())
            std::this_thread::yield();
        (void)task.load(); // not taken out of q by w2
    });
    workers.start();
    workers.join();
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

int sfgc_trace(const std::string& trace, const std::string& out) {
    const std::string cmd =
        std::string(SFGC_PATH) + " trace '" + trace + "' --spec '" + SFG_SOURCE_DIR +
        "/specs/extensions/work_queue.sfg' --analysis enforce,hb > '" + out + "'";
    const int status = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

} // namespace

TEST_CASE("live work queue: a pool conforms under collect and throw_error, every run") {
    for (sfg::on_finding policy : {sfg::on_finding::collect, sfg::on_finding::throw_error}) {
        for (int run = 0; run < 10; ++run) {
            CAPTURE(run);
            sfg::session_options o = collecting("enforce,hb,fasttrack,goldilocks");
            o.policy = policy;
            sfg::session s(work_queue::spec(), o);
            CHECK(pool(40) == 40 * 41 / 2);
            s.close();
            CHECK(seen(s.findings()).empty());
        }
    }
}

TEST_CASE("live work queue: no analysis takes the queue for more than its enq → deq edges") {
    // The precise race detectors see the hand-off as synchronization and nothing else of the
    // queue; SingleTrack's blocks, one a step, serialize (each takes the task after the last put
    // it back).
    for (int run = 0; run < 10; ++run) {
        CAPTURE(run);
        sfg::session s(work_queue::spec(),
                       collecting("enforce,hb,fasttrack,goldilocks,singletrack"));
        CHECK(pool(30, true) == 30 * 31 / 2);
        s.close();
        CHECK(seen(s.findings()).empty());
    }
    // Without a spec: race detection alone.
    sfg::session s(collecting("hb,fasttrack,goldilocks"));
    CHECK(pool(30) == 30 * 31 / 2);
    s.close();
    CHECK(seen(s.findings()).empty());
}

TEST_CASE("live work queue: a worker touching a task it has not taken, on every run") {
    for (sfg::on_finding policy : {sfg::on_finding::collect, sfg::on_finding::log}) {
        for (int run = 0; run < 10; ++run) {
            CAPTURE(run);
            sfg::session_options o = collecting("enforce,hb");
            o.policy = policy;
            sfg::session s(work_queue::spec(), o);
            touch_untaken();
            s.close();
            const auto fs = s.findings();
            REQUIRE(fs.size() == 2);
            CHECK(fs[0].kind == "violation");
            CHECK(fs[0].analysis == "enforce");
            CHECK(fs[0].var == "task");
            CHECK(fs[0].thread == "w2");
            CHECK(fs[0].op == "r");
            // The explanation: w2 must take the task out of q first.
            CHECK(fs[0].message.find("deq(q,task)") != std::string::npos);
            CHECK(fs[1].kind == "race");
            CHECK(fs[1].analysis == "hb");
            CHECK(fs[1].var == "task");
        }
    }
    // Under throw_error the read throws in w2, and the join rethrows it.
    sfg::session_options o = collecting("enforce,hb");
    o.policy = sfg::on_finding::throw_error;
    sfg::session s(work_queue::spec(), o);
    try {
        touch_untaken();
        FAIL("no finding_error");
    } catch (const sfg::finding_error& e) {
        CHECK(e.details().kind == "violation");
        CHECK(e.details().thread == "w2");
    }
}

TEST_CASE("live queue: FIFO; try_pop takes one when there is one, and records only then") {
    const auto path = scratch() / "queue_fifo.std";
    {
        sfg::session_options o = collecting("enforce,hb");
        o.trace_path = path.string();
        sfg::session s(work_queue::spec(), o);
        sfg::queue<int> q("q");
        sfg::shared<int> task("task", 1), other("other", 2);
        const std::uint64_t before = s.events();
        CHECK_FALSE(q.try_pop());
        CHECK(s.events() == before); // nothing taken, nothing recorded
        q.push(task);
        q.push(other);
        CHECK(s.events() == before + 2);
        auto first = q.try_pop();
        REQUIRE(first);
        CHECK(&first->get() == &task);
        CHECK(&q.pop() == &other);
        CHECK_FALSE(q.try_pop());
        CHECK(s.events() == before + 4);
        s.close();
        CHECK(seen(s.findings()).empty());
    }
    const std::string text = slurp(path.string());
    const auto at = [&](const char* line) { return text.find(line); };
    REQUIRE(at("main|enq(q,task)\n") != std::string::npos);
    CHECK(at("main|enq(q,task)\n") < at("main|enq(q,other)\n"));
    CHECK(at("main|enq(q,other)\n") < at("main|deq(q,task)\n"));
    CHECK(at("main|deq(q,task)\n") < at("main|deq(q,other)\n"));
    // The queue's own lock is not in the trace.
    CHECK(text.find("acq(") == std::string::npos);
}

TEST_CASE("live work queue: the recorded trace replays to the same verdicts") {
    const auto good = scratch() / "work_queue_pool.std";
    const auto bad = scratch() / "work_queue_untaken.std";
    for (const auto& path : {good, bad}) {
        sfg::session_options o = collecting("enforce,hb");
        o.trace_path = path.string();
        sfg::session s(work_queue::spec(), o);
        if (path == good)
            pool(20);
        else
            touch_untaken();
    }
    const std::string good_trace = slurp(good.string());
    CHECK(good_trace.find("w1|deq(q,task)") != std::string::npos);
    CHECK(good_trace.find("w2|enq(q,task)") != std::string::npos);
    CHECK(sfgc_trace(good.string(), good.string() + ".out") == 0);
    CHECK(sfgc_trace(bad.string(), bad.string() + ".out") == 1);
    const std::string report = slurp(bad.string() + ".out");
    CHECK(report.find("discipline of task violated (enforce)") != std::string::npos);
    CHECK(report.find("data race on task (hb)") != std::string::npos);
}

TEST_CASE("live queue: used by a thread sfg did not start, or named after a variable") {
    {
        sfg::session s(work_queue::spec(), collecting());
        sfg::queue<int> q("q");
        sfg::shared<int> task("task", 0);
        std::thread t([&] { q.push(task); });
        t.join();
        const auto fs = s.findings();
        REQUIRE(fs.size() == 1);
        CHECK(fs[0].kind == "misuse");
        CHECK(fs[0].var == "q");
        CHECK(fs[0].message.find("not started through sfg::thread") != std::string::npos);
        CHECK(&q.pop() == &task); // pushed all the same
    }
    sfg::session s(work_queue::spec(), collecting());
    sfg::queue<int> wrong("task");
    sfg::shared<int> q("q", 0);
    wrong.push(q);
    const auto fs = s.findings();
    REQUIRE(fs.size() == 2);
    CHECK(fs[0].var == "task");
    CHECK(fs[0].message.find("queue 'task' has the name of a variable of work_queue.sfg") !=
          std::string::npos);
    CHECK(fs[1].var == "q");
    CHECK(fs[1].message.find("variable 'q' has the name of a queue of work_queue.sfg") !=
          std::string::npos);
}

TEST_CASE("the runtime's queue edges from a generated header are the compiler's") {
    const std::string path = std::string(SFG_SOURCE_DIR) + "/specs/extensions/work_queue.sfg";
    sfg::SourceFile source(path, slurp(path));
    sfg::Diagnostics diags;
    const std::optional<sfg::CompiledSpec> compiled = sfg::compile_spec(source, diags);
    REQUIRE(compiled);
    const sfg::spec& live = work_queue::spec();
    CHECK(live.queues() == std::vector<std::string>{"q"});
    CHECK(live.locks().empty());
    CHECK(live.threads() == compiled->threads);
    const auto& nets = live.impl().nets;
    REQUIRE(nets.size() == 1);
    const sfg::Net& a = nets[0].second;
    const sfg::Net& b = *compiled->variables[0].net;
    REQUIRE(a.edges.size() == b.edges.size());
    for (std::size_t i = 0; i < a.edges.size(); ++i) {
        CHECK(a.edges[i].mech == b.edges[i].mech);
        CHECK(a.edges[i].mech.kind == sfg::MechKind::queue);
        CHECK(a.edges[i].mech.name == "q");
    }
    CHECK(a.places.size() == b.places.size());
    CHECK(a.transitions.size() == b.transitions.size());
    CHECK(a.initial_markings == b.initial_markings);
}

TEST_CASE("spec data made at run time, not by sfgc: a queue edge is enforced all the same") {
    // task : EX(main) ▷^q EX(w1)
    const char* names[] = {"", "main", "w1", "q", "task"};
    // main, w1 (names); q (names); mode 0 (in), mode 1 (out)
    const std::uint32_t lists[] = {1, 2, 3, 0, 1};
    const sfg::spec_data::mode modes[] = {{sfg::ModeKind::EX, {0, 1}}, {sfg::ModeKind::EX, {1, 1}}};
    const sfg::spec_data::edge qedge[] = {{0, 1, sfg::MechKind::queue, 3, 0, {0, 0}}};
    const sfg::spec_data::variable vars[] = {{4, true, {0, 2}, {0, 1}, {3, 1}, {4, 1}}};
    sfg::spec_data::spec h{};
    h.file = "handmade.sfg";
    h.names = names;
    h.name_count = 5;
    h.lists = lists;
    h.list_count = 5;
    h.threads = {0, 2};
    h.modes = modes;
    h.mode_count = 2;
    h.edges = qedge;
    h.edge_count = 1;
    h.variables = vars;
    h.variable_count = 1;
    h.queues = {2, 1};
    const sfg::spec handmade(h);
    CHECK(handmade.queues() == std::vector<std::string>{"q"});
    for (bool take : {true, false}) {
        CAPTURE(take);
        sfg::session s(handmade, collecting("enforce"));
        sfg::queue<int> q("q");
        sfg::shared<int> task("task", 0);
        task = 1;
        q.push(task);
        sfg::thread w1("w1", [&] {
            if (take)
                q.pop() = 2;
            else
                task = 2;
        });
        w1.join();
        s.close();
        CHECK(seen(s.findings()) == (take ? Seen{} : Seen{{"violation", "enforce", "task"}}));
    }
}
