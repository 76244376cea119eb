// fuzz_trace_text: bytes as a text trace through the sequential reader into every analysis and
// the enforcer (trace_harness.hpp); the parallel reader on tiny chunks must deliver exactly the
// same events, ids and error, and the events must survive the binary writer and reader.
#include "random_trace.hpp" // same(): what two readers delivered
#include "trace_harness.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using sfg::testing::same;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const sfg::fuzz::Analysed seq =
        sfg::fuzz::analyse("fuzz.std", [&](sfg::Symbols& syms, sfg::Analysis& sink) {
            return sfg::read_trace_text(text, "fuzz.std", syms, sink);
        });
    if (seq.over_budget)
        return 0;

    // Chunks of 1 to 61 bytes, chosen by the length so that an input reproduces.
    sfg::Symbols par_syms;
    sfg::fuzz::Recorder par;
    const sfg::TraceResult r = sfg::read_trace_text_parallel(
        text, "fuzz.std", par_syms, par, {.threads = 2, .chunk_bytes = 1 + size % 61});
    if (r.ok() != seq.result.ok() || r.events != seq.result.events)
        sfg::fuzz::fail("parallel reader: result differs");
    if (!r.ok() && r.error->to_string() != seq.result.error->to_string())
        sfg::fuzz::fail("parallel reader: error '" + r.error->to_string() + "', sequential '" +
                        seq.result.error->to_string() + "'");
    if (par.all.size() != seq.recorded.all.size())
        sfg::fuzz::fail("parallel reader: " + std::to_string(par.all.size()) + " events, " +
                        "sequential " + std::to_string(seq.recorded.all.size()));
    for (std::size_t i = 0; i < par.all.size(); ++i)
        if (!same(par.all[i], seq.recorded.all[i]))
            sfg::fuzz::fail("parallel reader: event " + std::to_string(i) + " differs");
    if (r.ok() && !same(par_syms, seq.syms))
        sfg::fuzz::fail("parallel reader: names differ");

    sfg::fuzz::round_trip<sfg::BinaryTraceWriter>(
        seq.recorded, seq.syms, "binary",
        [](const std::string& bytes, sfg::Symbols& syms, sfg::Analysis& sink) {
            return sfg::read_trace_binary(bytes, "fuzz.sfgt", syms, sink);
        });
    return 0;
}
