// `sfgc check --infer` (docs/infer.md): every explored execution is a trace of the inference,
// named by its program and number; each is replayed from its schedule for the check.
#include "check_infer.hpp"

#include "sfg/infer/check.hpp"
#include "sfg/infer/infer.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/well_formed.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <stdexcept>

namespace sfgc {

namespace {

// An execution's events, as the checker's analyses see them (checker/src/checker.cpp).
std::optional<std::string> stream_steps(const std::vector<sfg::checker::Step>& steps,
                                        sfg::Symbols& syms, sfg::Analysis& sink) {
    sfg::WellFormedStream stream(syms, sink);
    for (const sfg::checker::Step& s : steps)
        for (const sfg::checker::Action& a : s.actions)
            if (a.emitted &&
                !stream.push(a.thread, a.op, a.target, sfg::no_object, a.line,
                             a.has_value ? syms.values.intern(a.value) : sfg::no_object))
                return stream.error();
    stream.finish();
    return std::nullopt;
}

// Each execution into the inference, with hb; its schedule kept for the replay.
class InferSink : public sfg::checker::ExecutionSink {
public:
    InferSink(const sfg::checker::Model& m, sfg::infer::Inferrer& inf) : m_(m), inf_(inf) {}
    void on_execution(const sfg::checker::Execution& e) override {
        const std::string name = fmt::format("{} execution {}", m_.name, schedules.size() + 1);
        sfg::Symbols syms = m_.syms;
        sfg::infer::TraceRecorder rec;
        std::unique_ptr<sfg::RunningAnalysis> hb = sfg::make_analysis("hb");
        sfg::Fanout both;
        both.add(rec), both.add(hb->analysis());
        if (std::optional<std::string> err = stream_steps(*e.steps, syms, both))
            throw std::logic_error("checker produced an ill-formed stream: " + *err);
        both.finish(syms);
        if (auto err = inf_.add_trace(name, rec, syms, hb->findings(syms)); err && !error)
            error = err->to_string(); // the first; the exploration stops (stop())
        std::vector<sfg::ThreadId>& s = schedules.emplace_back();
        for (const sfg::checker::Step& step : *e.steps)
            s.push_back(step.thread);
    }
    bool stop() const override { return error.has_value(); }
    std::vector<std::vector<sfg::ThreadId>> schedules;
    std::optional<std::string> error;

private:
    const sfg::checker::Model& m_;
    sfg::infer::Inferrer& inf_;
};

bool write(const std::string& out, const std::string& text) {
    if (out == "-") {
        std::cout << text;
        std::cout.flush();
        return true;
    }
    std::ofstream f(out, std::ios::binary);
    f << text;
    f.close();
    if (!f)
        fmt::print(stderr, "{}: error: cannot write the output\n", out);
    return static_cast<bool>(f);
}

} // namespace

int infer_executions(const std::vector<const sfg::checker::Model*>& models,
                     const sfg::checker::CheckOptions& options, const std::string& out) {
    sfg::infer::Inferrer inf;
    std::vector<sfg::checker::Interpreter> interpreters;
    std::vector<std::unique_ptr<InferSink>> sinks;
    sfg::checker::CheckOptions one = options;
    one.jobs = 1, one.shard_index = 1, one.shard_count = 1, one.progress = false;
    interpreters.reserve(models.size());
    for (const sfg::checker::Model* m : models) {
        interpreters.emplace_back(*m);
        sinks.push_back(std::make_unique<InferSink>(*m, inf));
        try {
            sfg::checker::make_explorer(one)->explore(interpreters.back(), one, *sinks.back());
        } catch (const std::logic_error& e) { // an execution the stream refused: ours to fix
            fmt::print(stderr, "sfgc check: internal error: {}\n", e.what());
            return 3;
        }
        if (sinks.back()->error) {
            fmt::print(stderr, "{}\n", *sinks.back()->error);
            return 2;
        }
    }
    inf.finish();
    const std::string spec = sfg::infer::render_sfg(inf);
    std::vector<sfg::infer::Replay> replays;
    for (std::size_t i = 0; i < models.size(); ++i)
        for (std::size_t k = 0; k < sinks[i]->schedules.size(); ++k)
            replays.push_back({fmt::format("{} execution {}", models[i]->name, k + 1),
                               [&, i, k](sfg::Symbols& syms, sfg::Analysis& sink) {
                                   syms = models[i]->syms;
                                   return stream_steps(sfg::checker::replay(interpreters[i],
                                                                            sinks[i]->schedules[k]),
                                                       syms, sink);
                               }});
    if (std::optional<std::string> failed = sfg::infer::check_inferred(spec, replays)) {
        fmt::print(stderr, "sfgc check: internal error: {}\n{}", *failed, spec);
        return 3;
    }
    return write(out, spec) ? 0 : 2;
}

} // namespace sfgc
