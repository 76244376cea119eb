// fuzz_trace_binary: bytes as a binary trace (the magic is prepended when missing, so mutations
// reach the records) through every analysis and the enforcer (trace_harness.hpp); the events
// must survive the text writer and reader.
#include "trace_harness.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static constexpr std::string_view magic = "SFGTRC1\n";
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.starts_with(magic))
        bytes.insert(0, magic);
    const sfg::fuzz::Analysed seq =
        sfg::fuzz::analyse("fuzz.sfgt", [&](sfg::Symbols& syms, sfg::Analysis& sink) {
            return sfg::read_trace_binary(bytes, "fuzz.sfgt", syms, sink);
        });
    if (seq.over_budget)
        return 0;
    sfg::fuzz::round_trip<sfg::TextTraceWriter>(
        seq.recorded, seq.syms, "text",
        [](const std::string& text, sfg::Symbols& syms, sfg::Analysis& sink) {
            return sfg::read_trace_text(text, "fuzz.std", syms, sink);
        });
    return 0;
}
