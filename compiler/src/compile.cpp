#include "sfg/compiler/compile.hpp"

#include "sfg/compiler/parse.hpp"
#include "sfg/compiler/petri.hpp"
#include "sfg/compiler/program_sema.hpp"
#include "sfg/compiler/sema.hpp"

#include "big_stack.hpp"

namespace sfg {

namespace {
std::optional<CompiledSpec> compile(const SourceFile& file, Diagnostics& diags) {
    ast::Spec tree = parse_spec(file, diags);
    if (diags.has_errors())
        return std::nullopt;
    CompiledSpec spec = analyze(tree, file.name(), diags);
    check_programs(tree.programs, spec, diags); // issue 4: programs are checked with the spec
    if (diags.has_errors())
        return std::nullopt;
    spec.programs = tree.programs;
    for (CompiledVariable& v : spec.variables)
        if (v.sfg)
            v.net = build_petri_net(*v.sfg);
    return spec;
}
} // namespace

std::optional<CompiledSpec> compile_spec(const SourceFile& file, Diagnostics& diags) {
    // Sema and the AST's destructor recurse as deep as the longest operator chain.
    std::optional<CompiledSpec> out;
    run_with_big_stack([&] { out = compile(file, diags); });
    return out;
}

} // namespace sfg
