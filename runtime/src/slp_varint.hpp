// Decoding what the SLP reader (slp_format.cpp) has already checked: varints and the locations
// section of an image (slp_expand.hpp; the layout is docs/compressed.md's). No bounds checks:
// only bytes that passed the reader's come here.
#pragma once

#include "sfg/runtime/slp_expand.hpp"

#include <cstdint>

namespace sfg::slp_varint {

// An unsigned LEB128 varint the reader has checked; advances p past it.
inline std::uint64_t decode(const unsigned char*& p) {
    std::uint64_t v = *p & 0x7f;
    if (!(*p++ & 0x80)) [[likely]]
        return v;
    for (int shift = 7;; shift += 7) {
        const unsigned char b = *p++;
        v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

// The locations of an image's events, in event order.
class Locations {
public:
    explicit Locations(const SlpImage& image)
        : p_(reinterpret_cast<const unsigned char*>(image.location_bytes.data())),
          left_(image.location_count), ids_(image.location_ids.data()) {
        advance();
    }
    // The number of the next event that has a location; 0 when none is left.
    std::uint64_t next_number() const { return next_; }
    // That event's location (a Symbols id); moves on to the next.
    ObjId take() {
        const ObjId id = ids_[decode(p_)];
        advance();
        return id;
    }
    // The location of event `number`, or no_object; asked in increasing order of events.
    ObjId at(std::uint64_t number) { return number == next_ ? take() : no_object; }

private:
    void advance() {
        if (left_ == 0) {
            next_ = 0;
            return;
        }
        --left_;
        last_ += decode(p_);
        next_ = last_;
    }

    const unsigned char* p_;
    std::uint64_t left_;
    const ObjId* ids_;
    std::uint64_t last_ = 0, next_ = 0;
};

} // namespace sfg::slp_varint
