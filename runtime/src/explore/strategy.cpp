// The strategies of sfg::explore (strategy.hpp; docs/explore.md, "Modes").
#include "explore/strategy.hpp"

#include "sfg/runtime/engine/pct.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace sfg::explore_detail {

namespace {

bool preempts(const Decision& d, std::uint32_t t) {
    return d.last && *d.last != t &&
           std::binary_search(d.enabled->begin(), d.enabled->end(), *d.last);
}

// Depth-first over every interleaving (after Relacy's full search and CHESS's preemption
// bounding): a stack of the choices of the current run; the next run replays the stack up to
// its deepest node with a choice left and takes that choice.
class Naive final : public Strategy {
public:
    Naive(std::optional<unsigned> bound, TaskRoot root) : bound_(bound), root_(std::move(root)) {}

    void begin_run() override { preemptions_ = 0; }

    std::optional<Choice> choose(const Decision& d) override {
        const StepKey* expected = expected_step(keys_, root_, d.depth);
        if (d.depth < root_.prefix.size()) { // the steps to the task's root
            const std::optional<std::uint32_t> t = root_step(root_, d);
            if (t)
                preemptions_ += preempts(d, *t);
            return t ? std::optional<Choice>(Choice{*t, expected}) : std::nullopt;
        }
        const std::size_t level = d.depth - root_.prefix.size();
        if (level < stack_.size()) {
            Level& l = stack_[level];
            if (*d.enabled != l.enabled)
                return std::nullopt;
            const std::uint32_t t = l.options[l.index];
            preemptions_ += preempts(d, t);
            return Choice{t, expected};
        }
        Level l;
        l.enabled = *d.enabled;
        l.options = *d.enabled;
        if (bound_ && preemptions_ >= *bound_ && d.last &&
            std::binary_search(d.enabled->begin(), d.enabled->end(), *d.last)) {
            pruned_ = pruned_ || l.options.size() > 1;
            l.options = {*d.last}; // no preemption left: the running thread goes on
        }
        const std::uint32_t t = l.options.front();
        preemptions_ += preempts(d, t);
        stack_.push_back(std::move(l));
        return Choice{t, nullptr};
    }

    void end_run(const std::vector<StepKey>& path) override {
        keys_ = path;
        const std::size_t below = path.size() - std::min(path.size(), root_.prefix.size());
        stack_.resize(std::min(stack_.size(), below));
    }

    bool next_run() override {
        while (!stack_.empty() && stack_.back().index + 1 >= stack_.back().options.size())
            stack_.pop_back();
        if (stack_.empty())
            return false;
        ++stack_.back().index;
        // The steps before the new choice repeat.
        keys_.resize(std::min(keys_.size(), root_.prefix.size() + stack_.size() - 1));
        return true;
    }

    bool pruned() const override { return pruned_; }

    // The choices left at the shallowest level that has any, each a child task's root.
    void hand_off(std::vector<TaskRoot>& out) override {
        if (bound_) // a bounded search is one task: its preemptions are not in a root
            return;
        for (std::size_t level = 0; level < stack_.size(); ++level) {
            Level& l = stack_[level];
            if (l.index + 1 >= l.options.size())
                continue;
            TaskRoot c;
            c.prefix = root_.prefix;
            for (std::size_t i = 0; i < level; ++i)
                c.prefix.push_back(stack_[i].options[stack_[i].index]);
            const std::size_t known = std::min(keys_.size(), c.prefix.size());
            c.keys.assign(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(known));
            for (std::size_t j = l.index + 1; j < l.options.size(); ++j) {
                out.push_back(c);
                out.back().prefix.push_back(l.options[j]);
            }
            l.options.resize(l.index + 1);
            return;
        }
    }

private:
    struct Level {
        std::vector<std::uint32_t> enabled, options;
        std::size_t index = 0;
    };
    std::optional<unsigned> bound_;
    TaskRoot root_;
    std::vector<Level> stack_;  // the choices below the root
    std::vector<StepKey> keys_; // the last run's steps
    unsigned preemptions_ = 0;
    bool pruned_ = false;
};

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

class Random final : public Strategy {
public:
    explicit Random(std::uint64_t seed) : seed_(seed) {}
    void begin_run() override { rng_.seed(mix(seed_ ^ mix(run_))); }
    std::optional<Choice> choose(const Decision& d) override {
        const auto& e = *d.enabled;
        return Choice{e[std::uniform_int_distribution<std::size_t>(0, e.size() - 1)(rng_)],
                      nullptr};
    }
    void end_run(const std::vector<StepKey>&) override {}
    bool next_run() override {
        ++run_;
        return true;
    }

private:
    std::uint64_t seed_, run_ = 0;
    std::mt19937_64 rng_;
};

// PCT (sfg/runtime/engine/pct.hpp, shared with `sfgc check --mode pct`), with k the longest run
// so far.
class Pct final : public Strategy {
public:
    Pct(std::uint64_t seed, unsigned depth) : seed_(seed), depth_(depth) {}

    void begin_run() override { pct_.begin(mix(seed_ ^ mix(run_ + 0x51)), longest_, depth_); }

    std::optional<Choice> choose(const Decision& d) override {
        return Choice{pct_.choose(*d.enabled, d.depth), nullptr};
    }

    void end_run(const std::vector<StepKey>& path) override {
        longest_ = std::max<std::uint64_t>(longest_, path.size());
    }
    bool next_run() override {
        ++run_;
        return true;
    }

private:
    std::uint64_t seed_, run_ = 0, longest_ = 0;
    unsigned depth_;
    engine::PctScheduler pct_;
};

class Replay final : public Strategy {
public:
    explicit Replay(std::vector<std::uint32_t> s) : schedule_(std::move(s)) {}
    void begin_run() override {}
    std::optional<Choice> choose(const Decision& d) override {
        if (d.depth >= schedule_.size())
            return std::nullopt; // the run goes on past the schedule: not the same run
        const std::uint32_t t = schedule_[d.depth];
        if (!std::binary_search(d.enabled->begin(), d.enabled->end(), t))
            return std::nullopt;
        return Choice{t, nullptr};
    }
    void end_run(const std::vector<StepKey>&) override {}
    bool next_run() override { return false; }

private:
    std::vector<std::uint32_t> schedule_;
};

} // namespace

const StepKey* expected_step(const std::vector<StepKey>& last, const TaskRoot& root,
                             std::size_t depth) {
    return depth < last.size()        ? &last[depth]
           : depth < root.keys.size() ? &root.keys[depth]
                                      : nullptr;
}

std::optional<std::uint32_t> root_step(const TaskRoot& root, const Decision& d) {
    const std::uint32_t t = root.prefix[d.depth];
    if (!std::binary_search(d.enabled->begin(), d.enabled->end(), t))
        return std::nullopt;
    return t;
}

std::unique_ptr<Strategy> make_naive(std::optional<unsigned> max_preemptions, TaskRoot root) {
    return std::make_unique<Naive>(max_preemptions, std::move(root));
}
std::unique_ptr<Strategy> make_random(std::uint64_t seed) {
    return std::make_unique<Random>(seed);
}
std::unique_ptr<Strategy> make_pct(std::uint64_t seed, unsigned depth) {
    return std::make_unique<Pct>(seed, depth);
}
std::unique_ptr<Strategy> make_replay(std::vector<std::uint32_t> schedule) {
    return std::make_unique<Replay>(std::move(schedule));
}

std::string replay_string(const std::vector<std::uint32_t>& threads) {
    std::string out = "sfg1:";
    for (std::size_t i = 0; i < threads.size();) {
        std::size_t j = i;
        while (j < threads.size() && threads[j] == threads[i])
            ++j;
        if (i > 0)
            out += '.';
        out += std::to_string(threads[i]);
        if (j - i > 1)
            out += '*' + std::to_string(j - i);
        i = j;
    }
    return out;
}

std::vector<std::uint32_t> parse_replay(const std::string& text) {
    const auto bad = [&](std::size_t col, const std::string& why) {
        return std::invalid_argument("sfg::explore: replay string, column " +
                                     std::to_string(col + 1) + ": " + why);
    };
    const std::string prefix = "sfg1:";
    if (text.compare(0, prefix.size(), prefix) != 0)
        throw bad(0, "expected 'sfg1:' (a string from a finding's schedule)");
    std::vector<std::uint32_t> out;
    std::size_t i = prefix.size();
    const auto number = [&](std::uint64_t limit) {
        std::uint64_t v = 0;
        const char* first = text.data() + i;
        const auto [end, ec] = std::from_chars(first, text.data() + text.size(), v);
        if (ec != std::errc() || v > limit)
            throw bad(i, "expected a number up to " + std::to_string(limit));
        i += static_cast<std::size_t>(end - first);
        return v;
    };
    while (i < text.size()) {
        const auto t =
            static_cast<std::uint32_t>(number(std::numeric_limits<std::uint32_t>::max()));
        std::uint64_t n = 1;
        if (i < text.size() && text[i] == '*') {
            ++i;
            n = number(100'000'000);
        }
        out.insert(out.end(), n, t);
        if (i < text.size()) {
            if (text[i] != '.')
                throw bad(i, std::string("unexpected '") + text[i] + "'");
            ++i;
            if (i == text.size())
                throw bad(i, "a step expected after '.'");
        }
    }
    return out;
}

} // namespace sfg::explore_detail
