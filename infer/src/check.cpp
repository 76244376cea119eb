// Soundness of the output, checked on the inputs (docs/infer.md): the spec compiles and every
// trace replays through the registry's `enforce` without a violation.
#include "sfg/infer/check.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <fmt/format.h>

#include <sstream>

namespace sfg::infer {

std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<std::string>& trace_files) {
    SourceFile source("<inferred>", spec_text);
    Diagnostics diags;
    std::optional<CompiledSpec> spec = compile_spec(source, diags);
    if (!spec) {
        std::ostringstream text;
        print_diagnostics(text, source, diags, false);
        return fmt::format("the inferred spec does not compile:\n{}", text.str());
    }
    AnalysisInputs inputs;
    for (const CompiledVariable& v : spec->variables)
        if (v.net)
            inputs.disciplines.emplace_back(v.name, &*v.net);
    std::unique_ptr<RunningAnalysis> enforce = make_analysis("enforce", inputs);
    for (const std::string& file : trace_files) {
        Symbols syms;
        enforce->reset();
        const TraceResult read = read_trace_file(file, syms, enforce->analysis());
        if (!read.ok())
            return read.error->to_string();
        enforce->analysis().finish(syms);
        for (const Finding& f : enforce->findings(syms))
            return fmt::format("the inferred discipline of {} rejects its own trace {} at event "
                               "{}: {}",
                               f.var, file, f.access.event, f.message);
    }
    return std::nullopt;
}

} // namespace sfg::infer
