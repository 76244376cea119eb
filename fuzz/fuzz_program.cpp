// fuzz_program: bytes as a .sfg file with programs; each program that passes the front end is
// lowered and model checked under tight bounds in every mode, then reported as text and JSON,
// its counterexamples as traces, and emitted as Promela.
#include "fuzz_limits.hpp"

#include "sfg/checker/checker.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/checker/promela.hpp"
#include "sfg/checker/report.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const sfg::SourceFile file("fuzz.sfg", std::string(reinterpret_cast<const char*>(data), size));
    sfg::Diagnostics diags;
    const std::optional<sfg::CompiledSpec> spec =
        sfg::compile_spec(file, diags, sfg::fuzz::compile_limits());
    if (!spec)
        return 0;
    std::ostringstream out;
    for (const sfg::ast::Program& p : spec->programs) {
        const sfg::PromelaModel promela = sfg::emit_promela(*p.body, *spec);
        out << promela.text;
        const sfg::checker::Model model = sfg::checker::lower(*spec, p);
        for (const sfg::checker::Mode mode :
             {sfg::checker::Mode::dpor, sfg::checker::Mode::naive, sfg::checker::Mode::random}) {
            sfg::checker::CheckOptions options;
            options.mode = mode;
            options.seed = size; // random: reproducible from the input
            options.max_executions =
                mode == sfg::checker::Mode::random ? 20 : sfg::fuzz::max_executions;
            options.max_steps = sfg::fuzz::max_steps;
            const sfg::checker::CheckResult r = sfg::checker::check_model(model, options);
            sfg::checker::print_text(out, model, r);
            out << sfg::checker::to_json(model, r).dump(2, ' ', false,
                                                        nlohmann::json::error_handler_t::replace);
            for (const sfg::checker::CheckFinding& f : r.findings)
                out << sfg::checker::trace_file_name(model, f)
                    << sfg::checker::trace_text(model, f);
        }
    }
    return 0;
}
