// fuzz_slp: bytes as an SLP (docs/compressed.md; the magic is prepended when missing, so
// mutations reach the sections): read_slp, well-formedness on the grammar, and hb and eraser on
// the grammar; when the trace it generates is small, these must agree with the expansion: the
// checker's verdict and error, hb's races, eraser's warnings. The fast reader and expansion
// (slp_expand.hpp), on two threads in tiny batches, must give read_slp's error and
// expand_slp's events and error.
#include "trace_harness.hpp"

#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/slp/slp_eraser.hpp"
#include "sfg/runtime/slp/slp_expand.hpp"
#include "sfg/runtime/slp/slp_hb.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static constexpr std::string_view magic = "SFGSLP1\n";
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.starts_with(magic))
        bytes.insert(0, magic);
    sfg::Symbols syms;
    sfg::Slp slp;
    const auto read_error = sfg::read_slp(bytes, "fuzz.slp", syms, slp);
    sfg::Symbols image_syms;
    sfg::SlpImage image;
    const auto image_error = sfg::read_slp_image(bytes, "fuzz.slp", image_syms, image, 2);
    if (read_error.has_value() != image_error.has_value() ||
        (read_error && read_error->to_string() != image_error->to_string()))
        sfg::fuzz::fail("read_slp and read_slp_image disagree: " +
                        (read_error ? read_error->to_string() : std::string("read")) + " | " +
                        (image_error ? image_error->to_string() : std::string("read")));
    if (read_error)
        return 0;
    // As in the trace harnesses: vector clocks and summaries over thousands of threads are what
    // --max-memory stops in sfgc.
    if (syms.threads.size() > sfg::fuzz::max_trace_threads)
        return 0;
    const auto error = sfg::check_slp_well_formed(slp, "fuzz.slp", syms);
    if (slp.events() > 100000) {
        if (!error) { // only the grammar: the expansion would take too long
            (void)sfg::SlpHb(slp, syms).races();
            (void)sfg::slp_eraser_warnings(slp, syms);
        }
        return 0;
    }
    sfg::HbDetector hb;
    sfg::EraserDetector eraser;
    sfg::fuzz::Recorder serial, threaded;
    sfg::Fanout both;
    both.add(hb);
    both.add(eraser);
    both.add(serial);
    const sfg::TraceResult r = sfg::expand_slp(slp, "fuzz.slp", syms, both);
    const sfg::TraceResult t =
        sfg::expand_slp(image, "fuzz.slp", image_syms, threaded, {.threads = 2, .batch_events = 3});
    if (serial.lines != threaded.lines || r.events != t.events ||
        r.error.has_value() != t.error.has_value() ||
        (r.error && r.error->to_string() != t.error->to_string()))
        sfg::fuzz::fail("the expansion on two threads differs from expand_slp: " +
                        std::to_string(threaded.lines.size()) + " events against " +
                        std::to_string(serial.lines.size()) + "; " +
                        (t.error ? t.error->to_string() : std::string("well-formed")) + " | " +
                        (r.error ? r.error->to_string() : std::string("well-formed")));
    if (error.has_value() != r.error.has_value() ||
        (error && error->to_string() != r.error->to_string()))
        sfg::fuzz::fail("well-formedness on the grammar disagrees with the expansion: " +
                        (error ? error->to_string() : std::string("well-formed")) + " | " +
                        (r.error ? r.error->to_string() : std::string("well-formed")));
    if (error)
        return 0;
    const std::string grammar_races = sfg::fuzz::race_key(sfg::SlpHb(slp, syms).races(), syms);
    if (grammar_races != sfg::fuzz::race_key(hb.races(), syms))
        sfg::fuzz::fail("hb on the grammar " + grammar_races + "| on the expansion " +
                        sfg::fuzz::race_key(hb.races(), syms));
    auto warnings = [&](const std::vector<sfg::LocksetWarning>& ws) {
        std::string s;
        for (const sfg::Finding& f : sfg::to_findings(ws, syms))
            s += f.var + "@" + std::to_string(f.access.event) + "/" +
                 std::to_string(f.with ? f.with->event : 0) + " " + f.message + "\n";
        return s;
    };
    if (warnings(sfg::slp_eraser_warnings(slp, syms)) != warnings(eraser.warnings()))
        sfg::fuzz::fail("eraser on the grammar " + warnings(sfg::slp_eraser_warnings(slp, syms)) +
                        "| on the expansion " + warnings(eraser.warnings()));
    return 0;
}
