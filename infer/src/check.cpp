// Soundness of the output, checked on the inputs (docs/infer.md): the spec compiles and every
// input replays through the registry's `enforce` without a violation.
#include "sfg/infer/check.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <fmt/format.h>

#include <sstream>

namespace sfg::infer {

std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<Replay>& inputs) {
    SourceFile source("<inferred>", spec_text);
    Diagnostics diags;
    std::optional<CompiledSpec> spec = compile_spec(source, diags);
    if (!spec) {
        std::ostringstream text;
        print_diagnostics(text, source, diags, false);
        return fmt::format("the inferred spec does not compile:\n{}", text.str());
    }
    AnalysisInputs analysis_inputs;
    for (const CompiledVariable& v : spec->variables)
        if (v.net)
            analysis_inputs.disciplines.emplace_back(v.name, &*v.net);
    std::unique_ptr<RunningAnalysis> enforce = make_analysis("enforce", analysis_inputs);
    for (const Replay& input : inputs) {
        Symbols syms;
        enforce->reset();
        if (std::optional<std::string> error = input.feed(syms, enforce->analysis()))
            return error;
        enforce->analysis().finish(syms);
        for (const Finding& f : enforce->findings(syms))
            return fmt::format("the inferred discipline of {} rejects its own input {} at event "
                               "{}: {}",
                               f.var, input.name, f.access.event, f.message);
    }
    return std::nullopt;
}

std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<std::string>& trace_files) {
    std::vector<Replay> inputs;
    for (const std::string& file : trace_files)
        inputs.push_back({file, [file](Symbols& syms, Analysis& sink) {
                              const TraceResult read = read_trace_file(file, syms, sink);
                              return read.ok() ? std::nullopt
                                               : std::optional(read.error->to_string());
                          }});
    return check_inferred(spec_text, inputs);
}

} // namespace sfg::infer
