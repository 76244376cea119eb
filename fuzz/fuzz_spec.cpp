// fuzz_spec: bytes as a .sfg file through the whole front end (parse, sema, SFGs, nets), then
// every writer but the Graphviz layout (slow, and not ours), and net verification.
#include "fuzz_limits.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/compiler/render.hpp"
#include "sfg/compiler/verify.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const sfg::SourceFile file("fuzz.sfg", std::string(reinterpret_cast<const char*>(data), size));
    sfg::Diagnostics diags;
    const std::optional<sfg::CompiledSpec> spec =
        sfg::compile_spec(file, diags, sfg::fuzz::compile_limits());
    std::ostringstream out;
    sfg::print_diagnostics(out, file, diags);
    sfg::print_diagnostics(out, file, diags, /*color=*/true);
    if (!spec) {
        out << sfg::to_json(file.name(), nullptr, diags);
        return 0;
    }
    // The writers and verify_net take a spec whose edge families are listed, as sfgc gives them.
    std::optional<sfg::CompiledSpec> listed;
    if (sfg::has_families(*spec)) {
        listed = *spec;
        if (!sfg::expand_families(*listed, diags, sfg::fuzz::compile_limits()))
            return 0;
    }
    const sfg::CompiledSpec& shown = listed ? *listed : *spec;
    out << sfg::to_json(file.name(), &shown, diags);
    for (const sfg::View view : {sfg::View::sfg, sfg::View::net, sfg::View::both})
        out << sfg::to_dot(shown, view);
    out << sfg::to_pnml(shown);
    // Every N(G) is 1-safe and feasible (thesis Lemma 4.3.10): a failure is a compiler bug.
    for (const sfg::CompiledVariable& v : shown.variables) {
        if (!v.net)
            continue;
        const sfg::NetVerification r = sfg::verify_net(*v.net, sfg::fuzz::max_markings());
        if (!r.ok()) {
            std::fprintf(stderr, "fuzz_spec: net of '%s' breaks an invariant: %s\n", v.name.c_str(),
                         r.failure.c_str());
            std::abort();
        }
    }
    return 0;
}
