// specs/programs/ (GenMC style, one folder per example): each NAME/NAME.sfg against
// NAME/expected (naive's executions, dpor's executions, classes, final states, completeness,
// findings, exit; both modes give the same lines but for the executions); every
// counterexample replays with `sfgc trace` to the same finding (races, violations, conflicts and
// cycles); random mode agrees.
#include "support.hpp"

#include "sfg/checker/report.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <set>
#include <sys/wait.h>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;
namespace fs = std::filesystem;

namespace {

struct Example {
    std::string name, sfg_path;
    std::vector<std::string> expected; // the expected file without comments
    CheckOptions options;
};

std::vector<Example> examples() {
    std::vector<Example> out;
    for (const auto& entry :
         fs::directory_iterator(std::string(SFG_SOURCE_DIR) + "/specs/programs")) {
        if (!entry.is_directory())
            continue;
        Example e;
        e.name = entry.path().filename().string();
        e.sfg_path = (entry.path() / (e.name + ".sfg")).string();
        std::istringstream in(read_file((entry.path() / "expected").string()));
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#')
                continue;
            if (line.rfind("options: ", 0) == 0) {
                std::istringstream opts(line.substr(9));
                for (std::string flag, value; opts >> flag >> value;) {
                    if (flag == "--preemption-bound")
                        e.options.preemption_bound = static_cast<std::uint32_t>(std::stoul(value));
                    else if (flag == "--max-steps")
                        e.options.max_steps = std::stoull(value);
                    else if (flag == "--max-executions")
                        e.options.max_executions = std::stoull(value);
                }
            }
            e.expected.push_back(line);
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(),
              [](const Example& a, const Example& b) { return a.name < b.name; });
    return out;
}

std::string finding_line(const CheckFinding& f) {
    return "finding: " + std::string(to_string(f.kind)) + " " +
           (!f.var.empty() ? f.var
            : f.line()     ? "line " + std::to_string(*f.line())
                           : "-");
}

// The expected file's lines for `r`: naive's `executions:` or dpor's `dpor_executions:`.
std::vector<std::string> summary(const CheckResult& r, const std::vector<std::string>& expected) {
    std::vector<std::string> out;
    if (!expected.empty() && expected[0].rfind("options: ", 0) == 0)
        out.push_back(expected[0]);
    out.push_back((r.mode == Mode::dpor ? "dpor_executions: " : "executions: ") +
                  std::to_string(r.stats.executions));
    out.push_back("classes: " + std::to_string(r.classes));
    out.push_back("final_states: " + std::to_string(r.final_states));
    out.push_back(std::string("complete: ") + (r.stats.complete ? "true" : "false"));
    for (const CheckFinding& f : r.findings)
        out.push_back(finding_line(f));
    out.push_back(std::string("exit: ") + (r.found() ? "1" : "0"));
    return out;
}

// The expected lines without the other mode's executions line.
std::vector<std::string> expected_for(const Example& e, Mode mode) {
    std::vector<std::string> out;
    const char* other = mode == Mode::dpor ? "executions: " : "dpor_executions: ";
    for (const std::string& line : e.expected)
        if (line.rfind(other, 0) != 0)
            out.push_back(line);
    return out;
}

int run_command(const std::string& cmd, std::string& output) {
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    output.clear();
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
        output.append(buf, n);
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

TEST_CASE("every example gives its expected executions, classes, final states and findings") {
    std::vector<Example> all = examples();
    CHECK(all.size() >= 12);
    for (const Example& e : all) {
        CAPTURE(e.name);
        auto l = load(read_file(e.sfg_path), e.sfg_path);
        REQUIRE(l);
        for (Mode mode : {Mode::naive, Mode::dpor}) {
            CAPTURE(to_string(mode));
            CheckOptions o = e.options;
            o.mode = mode;
            std::vector<std::string> expected = expected_for(e, mode);
            CHECK(summary(check_model(l->model, o), expected) == expected);
        }
    }
}

TEST_CASE("every counterexample replays with `sfgc trace` to the same finding") {
    fs::path dir = fs::temp_directory_path() / ("sfg_checker_replay_" + std::to_string(getpid()));
    fs::create_directories(dir);
    for (const Example& e : examples()) {
        CAPTURE(e.name);
        auto l = load(read_file(e.sfg_path), e.sfg_path);
        REQUIRE(l);
        std::vector<CheckFinding> findings; // both modes' counterexamples
        for (Mode mode : {Mode::naive, Mode::dpor}) {
            CheckOptions o = e.options;
            o.mode = mode;
            for (CheckFinding& f : check_model(l->model, o).findings)
                findings.push_back(std::move(f));
        }
        for (const CheckFinding& f : findings) {
            if (f.steps.empty())
                continue;
            CAPTURE(f.message);
            fs::path trace = dir / trace_file_name(l->model, f);
            std::ofstream(trace) << trace_text(l->model, f);
            std::string out;
            int code =
                run_command(std::string(SFGC_PATH) + " trace " + trace.string() + " --spec " +
                                e.sfg_path + " --analysis fasttrack,enforce --format json 2>&1",
                            out);
            if (f.kind == FindingKind::conflict || f.kind == FindingKind::cycle) {
                // Determinism: singletrack finds the same kind at the same event.
                REQUIRE(run_command(std::string(SFGC_PATH) + " trace " + trace.string() +
                                        " --analysis singletrack --format json 2>&1",
                                    out) == 1);
                nlohmann::json j = nlohmann::json::parse(out);
                bool same = false;
                for (const auto& x : j["analyses"][0]["findings"])
                    same = same || (x["kind"] == to_string(f.kind) && x["event"] == f.access.event);
                CHECK(same);
                continue;
            }
            if (f.kind != FindingKind::race && f.kind != FindingKind::violation) {
                CHECK((code == 0 || code == 1)); // a well-formed trace
                continue;
            }
            REQUIRE(code == 1);
            nlohmann::json j = nlohmann::json::parse(out);
            bool same = false;
            for (const auto& a : j["analyses"]) {
                const char* key = f.kind == FindingKind::race ? "races" : "violations";
                if ((a["name"] == "fasttrack") != (f.kind == FindingKind::race) || !a.contains(key))
                    continue;
                for (const auto& x : a[key])
                    same = same || (x["var"] == f.var && x["event"] == f.access.event);
            }
            CHECK(same);
        }
    }
    fs::remove_all(dir);
}

TEST_CASE("random mode finds only what naive finds, and on the small examples all of it") {
    for (const Example& e : examples()) {
        CAPTURE(e.name);
        auto l = load(read_file(e.sfg_path), e.sfg_path);
        REQUIRE(l);
        CheckOptions o = e.options;
        o.mode = Mode::naive;
        CheckResult naive = check_model(l->model, o);
        o.mode = Mode::random;
        o.seed = 7;
        o.max_executions = 300;
        CheckResult rnd = check_model(l->model, o);
        std::set<std::string> a, b;
        for (const CheckFinding& f : naive.findings)
            a.insert(finding_line(f));
        for (const CheckFinding& f : rnd.findings)
            b.insert(finding_line(f));
        for (const std::string& f : b)
            CHECK(a.count(f) == 1);
        CHECK(rnd.final_states <= naive.final_states);
        if (naive.stats.executions <= 100 && naive.stats.complete)
            CHECK(a == b);
    }
}
