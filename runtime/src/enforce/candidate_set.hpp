// Candidate sets L of thesis Figure 4.15, stored flat: per marking its size n, then its places
// p1..pn, sorted. The size is stored as a PlaceIx's value so that one array holds both.
#pragma once

#include "indices.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sfg::enforce {

std::uint64_t hash_marking(std::span<const PlaceIx> m);

// A read-only candidate set in the flat layout (what the explainer and the introspection read):
// valid until its owner changes.
class CandidateView {
public:
    CandidateView() = default;
    CandidateView(std::span<const PlaceIx> data, std::uint32_t count)
        : data_(data), count_(count) {}
    std::uint32_t count() const { return count_; }
    std::span<const PlaceIx> data() const { return data_; }
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = 0; i < data_.size(); i += std::size_t{data_[i].v} + 1)
            f(data_.subspan(i + 1, data_[i].v));
    }

private:
    std::span<const PlaceIx> data_;
    std::uint32_t count_ = 0;
};

// A set of distinct candidate markings.
class CandidateSet {
public:
    std::uint32_t count() const { return count_; }
    CandidateView view() const { return {data_, count_}; }
    void clear() {
        data_.clear();
        count_ = 0;
    }
    void push(std::span<const PlaceIx> m) {
        const std::size_t at = data_.size();
        data_.resize(at + 1 + m.size());
        data_[at] = PlaceIx::at(m.size());
        std::copy(m.begin(), m.end(), data_.begin() + static_cast<std::ptrdiff_t>(at + 1));
        ++count_;
    }
    template <class F>
    void for_each(F&& f) const {
        view().for_each(f);
    }
    // Keeps the markings that satisfy keep (kept of them: a subset of a distinct set stays
    // distinct).
    template <class F>
    void filter(F&& keep, std::uint32_t kept) {
        std::size_t w = 0;
        for (std::size_t i = 0; i < data_.size();) {
            const std::size_t len = data_[i].v;
            if (keep(std::span<const PlaceIx>(data_.data() + i + 1, len))) {
                std::copy(data_.begin() + static_cast<std::ptrdiff_t>(i),
                          data_.begin() + static_cast<std::ptrdiff_t>(i + len + 1),
                          data_.begin() + static_cast<std::ptrdiff_t>(w));
                w += len + 1;
            }
            i += len + 1;
        }
        data_.resize(w);
        count_ = kept;
    }
    // Applies f to each marking's places in place (it keeps their number and sorts them); the
    // caller knows that the markings stay distinct.
    template <class F>
    void rewrite(F&& f) {
        for (std::size_t i = 0; i < data_.size(); i += std::size_t{data_[i].v} + 1)
            f(std::span<PlaceIx>(data_.data() + i + 1, data_[i].v));
    }
    void swap(CandidateSet& o) {
        data_.swap(o.data_);
        std::swap(count_, o.count_);
    }

private:
    friend class CandidateBuilder;
    std::vector<PlaceIx> data_;
    std::uint32_t count_ = 0;
};

// Deduplicating builder of a candidate set: a linear scan while it is small, open addressing on
// marking hashes beyond that.
class CandidateBuilder {
public:
    void start(CandidateSet& out, std::size_t expected);
    bool add(std::span<const PlaceIx> m); // false when already present

private:
    static constexpr std::size_t linear_limit = 16;
    CandidateSet* out_ = nullptr;
    bool hashed_ = false;
    std::vector<std::uint32_t> offsets_; // data offset + 1 of each marking; 0 = empty slot
    std::size_t mask_ = 0;
};

} // namespace sfg::enforce
