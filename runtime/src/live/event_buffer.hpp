// The well-formed events of a split batch (docs/enforcers.md, "How it works"), kept for the
// second group of analyses, which runs over them while the next batch is checked, usually on
// another core. Private to runtime/src/live.
#pragma once

#include "sfg/runtime/event.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define SFG_NONTEMPORAL_STORES 1
#endif

namespace sfg::detail {

// Two buffers: the stream appends to buffers[fill] while the other is read.
class EventBuffer final : public Analysis {
public:
    std::size_t fill = 0;

    void on_event(const Event& e, const Symbols&) override {
        // Field by field through volatile: the stream has just stored the event field by field,
        // and a wider load spanning several of those stores cannot be forwarded from them (the
        // load would wait until they reach the cache).
        const volatile Event& v = e;
        const std::uint64_t words[3] = {
            v.number, std::uint64_t{v.thread} | std::uint64_t{v.target} << 32,
            std::uint64_t{v.location} | std::uint64_t{static_cast<std::uint8_t>(v.op)} << 32 |
                std::uint64_t{v.implicit} << 40};
        Buffer& b = buffers_[fill];
        if (b.size == b.capacity)
            b.grow();
        // A vr/vw's value (docs/traces.md, "Values of volatiles") beside the three words: few
        // events carry one.
        if (v.value_id != no_object) [[unlikely]]
            b.values.push_back({b.size, v.value_id});
        std::uint64_t* out = b.words.get() + 3 * b.size++;
        // Another core reads these lines, and still holds those of the last time this buffer
        // was filled: a plain store would wait for it to give each one up (measured on the
        // live benchmarks: the checker's cost per event tripled). Non-temporal stores write
        // around the caches and wait for nothing.
        for (std::size_t i = 0; i < 3; ++i)
#ifdef SFG_NONTEMPORAL_STORES
            _mm_stream_si64(reinterpret_cast<long long*>(out + i),
                            static_cast<long long>(words[i]));
#else
            out[i] = words[i];
#endif
    }

    // Makes the events appended so far visible to a thread that acquires what the caller
    // releases next (a release store does not order non-temporal stores).
    static void publish() {
#ifdef SFG_NONTEMPORAL_STORES
        _mm_sfence();
#endif
    }

    // Hands buffer b's events to `sink`, in order. The events have no line (the live stream has
    // none).
    void replay(std::size_t b, Analysis& sink, const Symbols& syms) const {
        const Buffer& from = buffers_[b];
        Event e;
        std::size_t next_value = 0;
        for (std::size_t i = 0; i < from.size; ++i) {
            const std::uint64_t* w = from.words.get() + 3 * i;
            e.number = w[0];
            e.thread = static_cast<ThreadId>(w[1]);
            e.target = static_cast<ObjId>(w[1] >> 32);
            e.location = static_cast<ObjId>(w[2]);
            e.op = static_cast<Op>(static_cast<std::uint8_t>(w[2] >> 32));
            e.implicit = (w[2] >> 40 & 1) != 0;
            e.value_id = no_object;
            if (next_value < from.values.size() && from.values[next_value].first == i)
                e.value_id = from.values[next_value++].second;
            sink.on_event(e, syms);
        }
    }

    void clear(std::size_t b) {
        buffers_[b].size = 0;
        buffers_[b].values.clear();
    }

private:
    struct Buffer {
        std::unique_ptr<std::uint64_t[]> words;            // three per event, not initialized
        std::size_t size = 0, capacity = 0;                // in events
        std::vector<std::pair<std::size_t, ObjId>> values; // (event index, Symbols::values id)
        void grow() {
            const std::size_t c = capacity ? 2 * capacity : 8192;
            auto more = std::make_unique_for_overwrite<std::uint64_t[]>(3 * c);
            std::copy(words.get(), words.get() + 3 * size, more.get());
            words = std::move(more);
            capacity = c;
        }
    };
    std::array<Buffer, 2> buffers_;
};

} // namespace sfg::detail
