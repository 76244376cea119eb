// sfg::explore's DPOR against its naive search (docs/explore.md, "Modes"): on random C++ bodies
// (threads doing volatile loads, stores and read-modify-writes, shared accesses, nested lock
// sections, try_lock, a barrier, a queue hand-off), dpor runs exactly one run per Mazurkiewicz
// class of the naive search's runs, and reports the same finding keys.
#include "explore/exploration.hpp"
#include "sfg/explore.hpp"
#include "volume.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

enum class Kind { load, store, fetch_add, cas, read, write, section, try_lock, barrier, push, pop };

struct Op {
    Kind kind = Kind::load;
    int object = 0;         // the volatile, shared variable or lock
    std::vector<Op> inside; // a section's body (under lock `object`)
};

struct Body {
    int threads = 2; // main and threads 1..threads-1
    std::vector<std::vector<Op>> code;
    bool barrier = false;
};

Op random_op(std::mt19937_64& rng, int depth) {
    Op op;
    const int pick = static_cast<int>(rng() % (depth < 1 ? 8 : 6));
    op.object = static_cast<int>(rng() % 2);
    switch (pick) {
    case 0:
        op.kind = Kind::load;
        break;
    case 1:
        op.kind = Kind::store;
        break;
    case 2:
        op.kind = rng() % 2 ? Kind::fetch_add : Kind::cas;
        break;
    case 3:
        op.kind = Kind::read;
        break;
    case 4:
    case 5:
        op.kind = Kind::write;
        break;
    case 6:
        op.kind = Kind::try_lock;
        break;
    default:
        op.kind = Kind::section;
        for (int n = 1 + static_cast<int>(rng() % 2); n > 0; --n)
            op.inside.push_back(random_op(rng, depth + 1));
        break;
    }
    return op;
}

Body random_body(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Body b;
    b.threads = 2 + static_cast<int>(rng() % 2);
    b.code.resize(static_cast<std::size_t>(b.threads));
    b.barrier = rng() % 4 == 0;
    for (auto& code : b.code) {
        for (int n = (b.threads == 2 ? 2 + static_cast<int>(rng() % 3)
                                     : 1 + static_cast<int>(rng() % 2));
             n > 0; --n)
            code.push_back(random_op(rng, 0));
        if (b.barrier)
            code.insert(code.begin() + static_cast<std::ptrdiff_t>(rng() % (code.size() + 1)),
                        Op{Kind::barrier, 0, {}});
    }
    if (rng() % 4 == 0) { // a hand-off: thread 1 pushes, main pops
        b.code[1].push_back(Op{Kind::push, 0, {}});
        b.code[0].push_back(Op{Kind::pop, 0, {}});
    }
    return b;
}

struct Objects {
    Objects(int threads)
        : v0("v0", 0), v1("v1", 0), s0("s0", 0), s1("s1", 0), m0("m0"), m1("m1"), b("b", threads),
          q("q"), item("item", 0) {}
    sfg::volatile_var<int> v0, v1;
    sfg::shared<int> s0, s1;
    sfg::mutex m0, m1;
    sfg::barrier b;
    sfg::queue<int> q;
    sfg::shared<int> item;
};

void run_ops(Objects& o, const std::vector<Op>& ops) {
    for (const Op& op : ops) {
        sfg::volatile_var<int>& v = op.object ? o.v1 : o.v0;
        sfg::shared<int>& s = op.object ? o.s1 : o.s0;
        sfg::mutex& m = op.object ? o.m1 : o.m0;
        switch (op.kind) {
        case Kind::load:
            (void)v.load();
            break;
        case Kind::store:
            v.store(1);
            break;
        case Kind::fetch_add:
            v.fetch_add(1);
            break;
        case Kind::cas: {
            int expected = 0;
            v.compare_exchange_strong(expected, 2);
            break;
        }
        case Kind::read:
            (void)s.load();
            break;
        case Kind::write:
            s.store(1);
            break;
        case Kind::section:
            m.lock();
            run_ops(o, op.inside);
            m.unlock();
            break;
        case Kind::try_lock:
            if (m.try_lock())
                m.unlock();
            break;
        case Kind::barrier:
            o.b.arrive_and_wait();
            break;
        case Kind::push:
            o.q.push(o.item);
            break;
        case Kind::pop:
            (void)o.q.pop();
            break;
        }
    }
}

std::function<void()> body_of(const Body& b) {
    return [b] {
        Objects o(b.threads);
        std::deque<sfg::thread> threads;
        for (int t = 1; t < b.threads; ++t)
            threads.emplace_back("t" + std::to_string(t),
                                 [&o, &b, t] { run_ops(o, b.code[static_cast<std::size_t>(t)]); });
        run_ops(o, b.code[0]);
        for (sfg::thread& t : threads)
            t.join();
    };
}

std::set<std::tuple<std::string, std::string, std::string>> keys(const sfg::explore_report& r) {
    std::set<std::tuple<std::string, std::string, std::string>> out;
    for (const sfg::explore_finding& f : r.findings)
        out.insert({f.kind, f.analysis, f.var});
    return out;
}

std::uint64_t programs() {
    const char* env = std::getenv("SFG_EXPLORE_PROGRAMS");
    return env ? std::strtoull(env, nullptr, 10) : 40;
}

} // namespace

TEST_CASE("explore dpor: the lost update in 4 classes of its 6 interleavings") {
    const auto body = [] {
        sfg::volatile_var<int> x("x", 0);
        sfg::thread t("t", [&] { x.store(x.load() + 1); });
        x.store(x.load() + 1);
        t.join();
        sfg::check(x.load() == 2, "no lost update");
    };
    const sfg::explore_report r = sfg::explore(body);
    CHECK(r.executions == 4);
    CHECK(r.classes == 4);
    CHECK(r.complete);
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].kind == "assert");
}

TEST_CASE("explore dpor: independent threads are one class") {
    const sfg::explore_report r = sfg::explore([] {
        sfg::volatile_var<int> a("a", 0), b("b", 0);
        sfg::shared<int> x("x", 0), y("y", 0);
        sfg::thread t("t", [&] {
            a.store(1);
            x = 1;
        });
        sfg::thread u("u", [&] {
            b.store(1);
            y = 2;
        });
        t.join();
        u.join();
    });
    CHECK(r.executions == 1);
    CHECK(r.complete);
    CHECK(r.findings.empty());
}

TEST_CASE("explore dpor: N threads incrementing under one mutex run N! classes") {
    for (int n = 2; n <= 4; ++n) {
        const sfg::explore_report r = sfg::explore([n] {
            sfg::mutex m("m");
            sfg::shared<int> x("x", 0);
            std::deque<sfg::thread> threads;
            for (int i = 0; i < n; ++i)
                threads.emplace_back("t" + std::to_string(i), [&] {
                    std::lock_guard g(m);
                    x = x + 1;
                });
            for (sfg::thread& t : threads)
                t.join();
        });
        std::uint64_t factorial = 1;
        for (int i = 2; i <= n; ++i)
            factorial *= static_cast<std::uint64_t>(i);
        CHECK(r.executions == factorial);
        CHECK(r.findings.empty());
    }
}

// Volume, not interleavings of the runtime's own threads (one runs at a time): the sanitizer
// stage skips it (volume.hpp).
TEST_CASE("explore dpor: the classes and finding keys of the naive search, on random bodies" *
          volume) {
    const std::uint64_t n = programs();
    std::uint64_t with_findings = 0, split = 0, skipped = 0;
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        const Body b = random_body(seed);
        sfg::explore_options naive;
        naive.mode = sfg::explore_mode::naive;
        naive.max_executions = 2000; // larger bodies are left out (counted below)
        std::uint64_t naive_classes = 0, dpor_classes = 0;
        const sfg::explore_report all =
            sfg::explore_detail::explore_counting(nullptr, body_of(b), naive, naive_classes);
        const sfg::explore_report reduced = sfg::explore_detail::explore_counting(
            nullptr, body_of(b), sfg::explore_options{}, dpor_classes);
        if (!all.complete) {
            ++skipped;
            continue;
        }
        INFO("seed " << seed << "\nnaive: " << all.to_string()
                     << "\ndpor: " << reduced.to_string());
        CHECK(reduced.complete);
        CHECK(reduced.executions == naive_classes); // one run a class, none missed
        CHECK(dpor_classes == naive_classes);
        CHECK(keys(reduced) == keys(all));
        // A task that hands on the rest of its top after every run (the most tasks there can
        // be): still one run a class, every interleaving once.
        sfg::explore_options handing;
        handing.task_budget = 1;
        std::uint64_t handed_classes = 0;
        const sfg::explore_report handed =
            sfg::explore_detail::explore_counting(nullptr, body_of(b), handing, handed_classes);
        INFO("dpor, task_budget 1: " << handed.to_string());
        CHECK(handed.complete);
        CHECK(handed.executions == naive_classes);
        CHECK(handed_classes == naive_classes);
        CHECK(keys(handed) == keys(all));
        naive.task_budget = 1;
        const sfg::explore_report every = sfg::explore(body_of(b), naive);
        CHECK(every.executions == all.executions);
        CHECK(keys(every) == keys(all));
        with_findings += !all.findings.empty();
        split += reduced.executions > 1;
    }
    // The generator's bodies are worth the comparison: findings and several classes are common.
    CHECK(skipped * 5 <= n);
    CHECK(with_findings * 5 >= n);
    CHECK(split * 2 >= n);
}

// Worker processes (docs/explore.md, "More than one process"): the search is divided into the
// same tasks whatever `jobs` is, handed on every task_budget runs, and their results merged in
// canonical order, so the report is the same for 1, 2 and 3 processes, also when
// max_executions cuts the search. (Under
// ThreadSanitizer every job runs in the exploring process: the same report by construction.)
TEST_CASE("explore: jobs 1, 2 and 3 give the same report" * volume) {
    int divided = 0, with_findings = 0;
    for (std::uint64_t seed = 21; seed <= 30; ++seed) {
        const Body b = random_body(seed);
        for (const sfg::explore_mode mode : {sfg::explore_mode::dpor, sfg::explore_mode::naive}) {
            for (const auto& [max, budget] :
                 {std::pair<std::uint64_t, std::uint64_t>{2000, 64}, {7, 64}, {2000, 2}, {7, 1}}) {
                sfg::explore_options o;
                o.mode = mode;
                o.max_executions = max;
                o.task_budget = budget;
                const sfg::explore_report one = sfg::explore(body_of(b), o);
                INFO("seed " << seed << "\n" << one.to_string());
                divided += one.executions > 4;
                with_findings += !one.findings.empty();
                for (const unsigned jobs : {2u, 3u}) {
                    o.jobs = jobs;
                    const sfg::explore_report more = sfg::explore(body_of(b), o);
                    CHECK(more.to_string() == one.to_string());
                    CHECK(more.executions == one.executions);
                    CHECK(more.classes == one.classes);
                    CHECK(more.complete == one.complete);
                }
            }
        }
    }
    MESSAGE(divided, " divided, ", with_findings, " with findings");
    CHECK(divided >= 10);
    CHECK(with_findings >= 4);
}

// Parts of one search for machines of their own (docs/explore.md, "More than one machine"): the
// top tasks dealt to the parts, each exploring its tasks' whole subtrees, so the parts' executions
// and classes add up to the whole search's, their findings' keys make up its keys, and each part
// is complete when the whole is. The parts' files merge into exactly the whole search's report,
// the shortest schedules (and the first among equally short ones) included.
TEST_CASE("explore: the parts of a sharded search add up to the whole" * volume) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "sfg_explore_dpor_parts";
    std::filesystem::create_directories(dir);
    int divided = 0, merged_findings = 0;
    for (std::uint64_t seed = 21; seed <= 30; ++seed) {
        const Body b = random_body(seed);
        for (const sfg::explore_mode mode : {sfg::explore_mode::dpor, sfg::explore_mode::naive}) {
            sfg::explore_options o;
            o.mode = mode;
            o.task_budget = 4;
            std::uint64_t whole_classes = 0;
            const sfg::explore_report whole =
                sfg::explore_detail::explore_counting(nullptr, body_of(b), o, whole_classes);
            INFO("seed " << seed << "\n" << whole.to_string());
            REQUIRE(whole.complete);
            for (const unsigned n : {2u, 3u}) {
                std::uint64_t executions = 0, classes = 0, busy = 0;
                std::set<std::tuple<std::string, std::string, std::string>> found;
                std::vector<std::string> files;
                for (unsigned k = n; k >= 1; --k) { // any order
                    o.shard = k;
                    o.shards = n;
                    files.push_back((dir / ("part_" + std::to_string(k) + ".json")).string());
                    o.part_file = files.back();
                    std::uint64_t part_classes = 0;
                    const sfg::explore_report part =
                        sfg::explore_detail::explore_counting(nullptr, body_of(b), o, part_classes);
                    INFO("part " << k << " of " << n << "\n" << part.to_string());
                    CHECK(part.complete);
                    executions += part.executions;
                    classes += part_classes;
                    busy += part.executions > 0;
                    const auto part_keys = keys(part);
                    found.insert(part_keys.begin(), part_keys.end());
                }
                o.shard = o.shards = 1;
                o.part_file.clear();
                CHECK(executions == whole.executions);
                if (mode == sfg::explore_mode::dpor) // a class in one part only
                    CHECK(classes == whole_classes);
                CHECK(found == keys(whole));
                divided += busy > 1;
                const sfg::explore_report merged = sfg::merge_explore_parts(files);
                CHECK(merged.to_string() == whole.to_string());
                CHECK(merged.executions == whole.executions);
                CHECK(merged.classes == whole.classes);
                CHECK(merged.complete == whole.complete);
                merged_findings += !merged.findings.empty();
            }
        }
    }
    CHECK(divided >= 20);
    CHECK(merged_findings >= 8);
}
