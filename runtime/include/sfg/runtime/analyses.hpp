// The analyses by name (docs/traces.md, "Analyses"): one registry that `sfgc trace`, `sfgc check`
// and the live runtime make their analyses from, so that a name means the same analysis, the same
// inputs and the same findings everywhere.
#pragma once

#include "sfg/runtime/enforce.hpp"
#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"
#include "sfg/runtime/report.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sfg {

// What an analysis may need besides the events.
struct AnalysisInputs {
    // The disciplines to enforce: each annotated variable (as traces name it) with N(G), in
    // declaration order. The nets must outlive the analysis.
    std::vector<std::pair<std::string, const Net*>> disciplines;
    EnforceOptions enforce;
};

struct AnalysisInfo {
    std::string_view name;        // "hb", "fasttrack", "goldilocks", "eraser", "enforce", ...
    FindingKind kind;             // what its findings are (singletrack: conflicts and cycles)
    bool needs_disciplines;       // takes AnalysisInputs::disciplines (a specification)
    bool counts_as_finding;       // its findings make `sfgc trace` exit 1 (eraser's do not)
    std::string_view description; // one line, for help texts
};

// The enforcer's violations as findings, each explained (explain()).
std::vector<Finding> to_findings(const std::vector<EnforceViolation>& violations);

// Every analysis, in the order of docs/traces.md.
std::span<const AnalysisInfo> analysis_registry();
// nullptr when there is no analysis of that name.
const AnalysisInfo* find_analysis(std::string_view name);
// "hb, fasttrack, goldilocks, eraser, enforce, singletrack".
std::string analysis_names();

// A comma-separated list of analysis names ("enforce, hb"), blanks around names ignored: each
// analysis once, in the order first named; `unknown` is the first name that names none (then
// `analyses` is incomplete). Empty names are skipped when `skip_empty`, unknown otherwise.
struct AnalysisList {
    std::vector<const AnalysisInfo*> analyses;
    std::optional<std::string> unknown;
};
AnalysisList parse_analysis_list(std::string_view list, bool skip_empty = false);

// One running analysis: feed analysis() the events of a trace, then ask for findings().
class RunningAnalysis {
public:
    virtual ~RunningAnalysis() = default;
    virtual const AnalysisInfo& info() const = 0;
    // The sink of the events (valid until reset()).
    virtual Analysis& analysis() = 0;
    // In event order; call after the stream's finish().
    virtual std::vector<Finding> findings(const Symbols& syms) const = 0;
    // findings(syms).size(), cheaply: the live runtime asks after every event.
    virtual std::size_t finding_count(const Symbols& syms) const { return findings(syms).size(); }
    // A stream this analysis cannot accept, though well-formed (singletrack: a `begin` inside a
    // block, an `end` outside one): an input error, after which it analysed nothing more.
    virtual std::optional<StreamError> stream_error() const { return std::nullopt; }
    // Forgets the events seen (keeps what was built from the inputs, e.g. the enforcer's
    // nets and index): ready for another trace with another Symbols.
    virtual void reset() = 0;
    AnalysisReport report(const Symbols& syms) const {
        return {std::string(info().name), info().kind, findings(syms)};
    }
};

// The analysis `name` over `inputs`; nullptr when the name is unknown. (Whether an analysis that
// needs disciplines was given a specification is the caller's to check: with none it finds
// nothing.)
std::unique_ptr<RunningAnalysis> make_analysis(std::string_view name,
                                               const AnalysisInputs& inputs = {});

} // namespace sfg
