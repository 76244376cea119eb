#include "candidate_set.hpp"

#include <bit>

namespace sfg::enforce {

std::uint64_t hash_marking(std::span<const PlaceIx> m) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ m.size();
    for (PlaceIx p : m) {
        h ^= p.v;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

void CandidateBuilder::start(CandidateSet& out, std::size_t expected) {
    out_ = &out;
    out.clear();
    hashed_ = expected > linear_limit;
    if (!hashed_)
        return;
    const std::size_t size = std::bit_ceil(expected * 2);
    offsets_.assign(size, 0);
    mask_ = size - 1;
}

bool CandidateBuilder::add(std::span<const PlaceIx> m) {
    CandidateSet& out = *out_;
    const std::vector<PlaceIx>& data = out.data_;
    if (!hashed_) {
        for (std::size_t i = 0; i < data.size(); i += std::size_t{data[i].v} + 1)
            if (data[i].v == m.size() &&
                std::equal(m.begin(), m.end(), data.begin() + static_cast<std::ptrdiff_t>(i + 1)))
                return false;
        out.push(m);
        return true;
    }
    for (std::size_t h = hash_marking(m) & mask_;; h = (h + 1) & mask_) {
        const std::uint32_t o = offsets_[h];
        if (o == 0) {
            offsets_[h] = static_cast<std::uint32_t>(data.size()) + 1;
            out.push(m);
            return true;
        }
        if (data[o - 1].v == m.size() && std::equal(m.begin(), m.end(), data.begin() + o))
            return false;
    }
}

} // namespace sfg::enforce
