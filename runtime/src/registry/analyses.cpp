// The registry of analyses (analyses.hpp): adding an analysis is one row and one factory here.
#include "sfg/runtime/analyses.hpp"

#include "sfg/runtime/determinism/analysis_singletrack.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/race/analysis_goldilocks.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"

#include <array>

namespace sfg {

namespace {

constexpr std::array<AnalysisInfo, 6> registry{{
    {"hb", FindingKind::race, false, true, "vector-clock happens-before race detection"},
    {"fasttrack", FindingKind::race, false, true, "FastTrack's epoch-based race detection"},
    {"goldilocks", FindingKind::race, false, true, "Goldilocks' lockset race detection"},
    {"eraser", FindingKind::warning, false, false, "Eraser's lockset discipline (warnings)"},
    {"enforce", FindingKind::violation, true, true, "enforcement of the specified disciplines"},
    {"singletrack", FindingKind::conflict, false, true,
     "SingleTrack's determinism checking of deterministic blocks (conflicts and cycles)"},
}};

// A detector that is recreated on reset: it keeps nothing worth keeping between traces.
template <class Detector>
class Fresh : public RunningAnalysis {
public:
    explicit Fresh(const AnalysisInfo& info) : info_(info) {}
    const AnalysisInfo& info() const override { return info_; }
    Analysis& analysis() override { return *d_; }
    void reset() override { d_ = std::make_unique<Detector>(); }

protected:
    const AnalysisInfo& info_;
    std::unique_ptr<Detector> d_ = std::make_unique<Detector>();
};

template <class Detector>
class RaceAnalysis final : public Fresh<Detector> {
public:
    using Fresh<Detector>::Fresh;
    std::vector<Finding> findings(const Symbols& syms) const override {
        return to_findings(this->d_->races(), syms);
    }
    std::size_t finding_count(const Symbols&) const override { return this->d_->races().size(); }
};

class EraserAnalysis final : public Fresh<EraserDetector> {
public:
    using Fresh::Fresh;
    std::vector<Finding> findings(const Symbols& syms) const override {
        return to_findings(d_->warnings(), syms);
    }
    std::size_t finding_count(const Symbols&) const override { return d_->warnings().size(); }
};

class SingleTrackAnalysis final : public Fresh<SingleTrackDetector> {
public:
    using Fresh::Fresh;
    std::vector<Finding> findings(const Symbols&) const override { return d_->findings(); }
    std::size_t finding_count(const Symbols&) const override { return d_->findings().size(); }
    std::optional<StreamError> stream_error() const override { return d_->error(); }
};

class EnforceAnalysis final : public RunningAnalysis {
public:
    EnforceAnalysis(const AnalysisInfo& info, const AnalysisInputs& inputs)
        : info_(info), enforcer_(inputs.enforce) {
        for (const auto& [var, net] : inputs.disciplines)
            enforcer_.add_variable(var, *net);
    }
    const AnalysisInfo& info() const override { return info_; }
    Analysis& analysis() override { return enforcer_; }
    void reset() override { enforcer_.reset(); } // keeps the nets and the index
    std::vector<Finding> findings(const Symbols&) const override {
        return to_findings(enforcer_.violations());
    }
    std::size_t finding_count(const Symbols&) const override {
        return enforcer_.violations().size();
    }

private:
    const AnalysisInfo& info_;
    Enforcer enforcer_;
};

} // namespace

std::vector<Finding> to_findings(const std::vector<EnforceViolation>& violations) {
    std::vector<Finding> out;
    for (const EnforceViolation& v : violations) {
        Finding f;
        f.kind = FindingKind::violation;
        f.var = v.var;
        f.access = {v.event, v.thread, v.op, v.line, v.location};
        f.message = explain(v);
        out.push_back(std::move(f));
    }
    return out;
}

std::span<const AnalysisInfo> analysis_registry() {
    return registry;
}

const AnalysisInfo* find_analysis(std::string_view name) {
    for (const AnalysisInfo& a : registry)
        if (a.name == name)
            return &a;
    return nullptr;
}

std::string analysis_names() {
    std::string s;
    for (const AnalysisInfo& a : registry)
        s += (s.empty() ? "" : ", ") + std::string(a.name);
    return s;
}

std::unique_ptr<RunningAnalysis> make_analysis(std::string_view name,
                                               const AnalysisInputs& inputs) {
    const AnalysisInfo* info = find_analysis(name);
    if (!info)
        return nullptr;
    if (name == "hb")
        return std::make_unique<RaceAnalysis<HbDetector>>(*info);
    if (name == "fasttrack")
        return std::make_unique<RaceAnalysis<FastTrackDetector>>(*info);
    if (name == "goldilocks")
        return std::make_unique<RaceAnalysis<GoldilocksDetector>>(*info);
    if (name == "eraser")
        return std::make_unique<EraserAnalysis>(*info);
    if (name == "singletrack")
        return std::make_unique<SingleTrackAnalysis>(*info);
    return std::make_unique<EnforceAnalysis>(*info, inputs); // no disciplines: nothing to enforce
}

AnalysisList parse_analysis_list(std::string_view list, bool skip_empty) {
    AnalysisList out;
    for (std::size_t pos = 0; pos <= list.size();) {
        const std::size_t comma = std::min(list.find(',', pos), list.size());
        std::string_view name = list.substr(pos, comma - pos);
        pos = comma + 1;
        const std::size_t first = name.find_first_not_of(" \t");
        name = first == std::string_view::npos
                   ? std::string_view()
                   : name.substr(first, name.find_last_not_of(" \t") - first + 1);
        if (name.empty() && skip_empty)
            continue;
        const AnalysisInfo* info = find_analysis(name);
        if (!info) {
            out.unknown = std::string(name);
            return out;
        }
        if (std::find(out.analyses.begin(), out.analyses.end(), info) == out.analyses.end())
            out.analyses.push_back(info);
    }
    return out;
}

} // namespace sfg
