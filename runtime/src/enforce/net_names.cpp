#include "net_names.hpp"

#include <algorithm>

namespace sfg::enforce {

std::string mechanism_key(MechKind kind, const std::string& label) {
    return std::string(to_string(kind)) + ":" + label;
}

std::string queue_item_key(const std::string& queue, const std::string& var) {
    return mechanism_key(MechKind::queue, queue + "(" + var + ")");
}

NetThread NetNames::intern_thread(const std::string& name) {
    auto [it, inserted] = thread_ids_.try_emplace(name, thread_names_.next_index());
    if (inserted) {
        thread_names_.push_back(name);
        fork_by_.emplace_back();
        join_by_.emplace_back();
        join_member_.emplace_back();
        fork_member_.emplace_back();
    }
    return it->second;
}

MechIx NetNames::intern_mechanism(const Mechanism& m, const std::string& var) {
    std::string label = m.label();
    auto [it, inserted] = mech_ids_.try_emplace(
        m.kind == MechKind::queue ? queue_item_key(m.name, var) : mechanism_key(m.kind, label),
        mechs_.next_index());
    if (!inserted)
        return it->second;
    const MechIx slot = it->second;
    MechanismInfo info;
    info.kind = m.kind;
    info.name = m.name;
    info.label = std::move(label);
    info.value = m.value;
    has_values_ = has_values_ || m.value.has_value();
    if (m.kind == MechKind::fork || m.kind == MechKind::join) {
        info.thread = intern_thread(m.thread);
        for (const std::string& t : m.threads)
            info.threads.push_back(intern_thread(t));
        std::sort(info.threads.begin(), info.threads.end());
        info.threads.erase(std::unique(info.threads.begin(), info.threads.end()),
                           info.threads.end());
        if (m.kind == MechKind::fork) {
            fork_by_[info.thread].push_back(slot);
            for (NetThread u : info.threads)
                fork_member_[u].push_back(slot);
        } else {
            join_by_[info.thread].push_back(slot);
            for (NetThread u : info.threads)
                join_member_[u].push_back(slot);
        }
    }
    mechs_.push_back(std::move(info));
    return slot;
}

MechIx NetNames::intern_mode_lock(const std::string& lock) {
    Mechanism m;
    m.kind = MechKind::lock;
    m.name = lock;
    const MechIx slot = intern_mechanism(m);
    mechs_[slot].mode_lock = true;
    return slot;
}

} // namespace sfg::enforce
