import os
os.chdir('/work/wt-values')
def rep(p,a,b):
    s=open(p).read()
    assert a in s,(p,a)
    s=s.replace(a,b,1); open(p,'w').write(s)
p='checker/include/sfg/checker/interpreter.hpp'
rep(p,"""    std::uint32_t line = 0;
    bool emitted = true;
    friend bool operator==(const Action&, const Action&) = default;""","""    std::uint32_t line = 0;
    bool emitted = true;
    // vr/vw: the value read or written (docs/traces.md, vr(v=K)); a volatile access always has one.
    bool has_value = false;
    std::int64_t value = 0;
    friend bool operator==(const Action&, const Action&) = default;""")
p='checker/src/interpreter.cpp'
rep(p,"""Action Interpreter::access(ThreadId t, Code code, std::uint32_t shared, std::uint32_t line) const {
    const SharedVar& v = model_.shared[shared];
    bool write = code == Code::store_s || code == Code::write_s;
    Op op = v.is_volatile ? (write ? Op::vol_write : Op::vol_read) : (write ? Op::write : Op::read);
    return Action{t, op, v.sym, line, true};
}""","""Action Interpreter::access(ThreadId t, Code code, std::uint32_t shared, std::uint32_t line,
                           std::int64_t value) const {
    const SharedVar& v = model_.shared[shared];
    bool write = code == Code::store_s || code == Code::write_s;
    Op op = v.is_volatile ? (write ? Op::vol_write : Op::vol_read) : (write ? Op::write : Op::read);
    // A volatile's value is what a value label v==K waits for (thesis §5.1, docs/traces.md).
    return Action{t, op, v.sym, line, true, v.is_volatile, v.is_volatile ? value : 0};
}""")
rep(p,"""                reads->push_back(access(t, Code::load_s, in.arg, in.line));""","""                reads->push_back(access(t, Code::load_s, in.arg, in.line, s.shared[in.arg]));""")
rep(p,"""    case Code::load_s:
        out.actions.push_back(access(t, in.code, in.arg, in.line));
        ts.stack.push_back(s.shared[in.arg]);
        break;
    case Code::store_s:
        out.actions.push_back(access(t, in.code, in.arg, in.line));
        s.shared[in.arg] = ts.stack.back();""","""    case Code::load_s:
        out.actions.push_back(access(t, in.code, in.arg, in.line, s.shared[in.arg]));
        ts.stack.push_back(s.shared[in.arg]);
        break;
    case Code::store_s:
        out.actions.push_back(access(t, in.code, in.arg, in.line, ts.stack.back()));
        s.shared[in.arg] = ts.stack.back();""")
rep(p,"""    case Code::read_s:
    case Code::write_s:
        out.actions.push_back(access(t, in.code, in.arg, in.line));""","""    case Code::read_s:
    case Code::write_s: // `write v;` leaves the value (docs/programs.md)
        out.actions.push_back(access(t, in.code, in.arg, in.line, s.shared[in.arg]));""")
p='checker/src/checker.cpp'
rep(p,"""                if (!stream.push(a.thread, a.op, a.target, no_object, a.line))""","""                if (!stream.push(a.thread, a.op, a.target, no_object, a.line,
                                 a.has_value ? std::optional<std::int64_t>(a.value)
                                             : std::nullopt))""")
p='checker/src/report.cpp'
rep(p,"""    if (op.operand == Operand::name)
        return fmt::format("{}({})", op.spelling, m.syms.names(op.space).name(a.target));""","""    if (op.operand == Operand::name) // vw(v=1): the value a volatile op carries (docs/traces.md)
        return fmt::format("{}({}{})", op.spelling, m.syms.names(op.space).name(a.target),
                           a.has_value ? fmt::format("={}", a.value) : "");""")
p='checker/src/part.cpp'
rep(p,"""            actions.push_back(
                ojson::array({std::string(spelling(a.op)), a.target, a.line, a.emitted}));""","""            actions.push_back(
                a.has_value // a volatile op's value, fifth
                    ? ojson::array({std::string(spelling(a.op)), a.target, a.line, a.emitted,
                                    a.value})
                    : ojson::array({std::string(spelling(a.op)), a.target, a.line, a.emitted}));""")
rep(p,"""                if (!ja.is_array() || ja.size() != 4 || !ja[0].is_string() ||
                    !ja[1].is_number_unsigned() || !ja[2].is_number_unsigned() ||
                    !ja[3].is_boolean())
                    bad(path, "an action is not [op, target, line, emitted]");""","""                if (!ja.is_array() || (ja.size() != 4 && ja.size() != 5) || !ja[0].is_string() ||
                    !ja[1].is_number_unsigned() || !ja[2].is_number_unsigned() ||
                    !ja[3].is_boolean() || (ja.size() == 5 && !ja[4].is_number_integer()))
                    bad(path, "an action is not [op, target, line, emitted] or [..., value]");""")
rep(p,"""                s.actions.push_back(Action{s.thread, *op, static_cast<ObjId>(target),
                                           ja[2].get<std::uint32_t>(), ja[3].get<bool>()});""","""                s.actions.push_back(Action{s.thread, *op, static_cast<ObjId>(target),
                                           ja[2].get<std::uint32_t>(), ja[3].get<bool>(),
                                           ja.size() == 5,
                                           ja.size() == 5 ? ja[4].get<std::int64_t>() : 0});""")
p='sfgc/check_command.cpp'
rep(p,"""    if (auto no = sfg::unenforced_construct(*spec, false)) {""","""    if (auto no = sfg::unenforced_construct(*spec, true)) {""")
p='checker/include/sfg/checker/interpreter.hpp'
rep(p,"""    Action access(ThreadId t, Code code, std::uint32_t shared, std::uint32_t line) const;""","""    Action access(ThreadId t, Code code, std::uint32_t shared, std::uint32_t line,
                  std::int64_t value) const;""")
import shutil
for d in ('vflag_handshake','vflag_too_early'):
    os.makedirs('specs/programs/'+d, exist_ok=True)
    shutil.copy('/tmp/vs3/%s/%s.sfg'%(d,d), 'specs/programs/%s/%s.sfg'%(d,d))
p='tests/cli/extensions_cli_test.cpp'
rep(p,"""    fs::path program = scratch() / "vflag_program.sfg";
    std::ofstream(program) << "threads a, b;\\nvolatile v;\\n"
                              "var x : [EX(a) |> ^(v == 1) EX(b)]^(v == 0);\\n"
                              "program p { thread a { x = 1; v = 1; } "
                              "thread b { await v == 1; x = 2; } }\\n";
    Run c = sfgc("check '" + program.string() + "'");
    CHECK(c.status == 2);
    CHECK(c.out.empty());
    CHECK(c.err == program.string() +
                       ":3:5: error: sfgc check cannot enforce the value label 'v==1' of 'x' "
                       "(thesis §5.1) yet\\n");
}""","""}

TEST_CASE("sfgc check enforces value labels: the vflag handshake, and a thread going too early") {
    CHECK(sfgc("check specs/programs/vflag_handshake/vflag_handshake.sfg").status == 0);
    const fs::path dir = scratch() / "vflag_cex";
    Run r = sfgc("check specs/programs/vflag_too_early/vflag_too_early.sfg --trace-out '" +
                 dir.string() + "'");
    CHECK(r.status == 1);
    CHECK(r.out.find("violation on x") != std::string::npos);
    // The counterexample shows the values, and sfgc trace replays it to the same violation.
    const fs::path cex = dir / "too_early-violation-x.std";
    std::ifstream in(cex);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("Thread1|vr(v=0)|too_early:8") != std::string::npos);
    Run t = sfgc("trace '" + cex.string() +
                 "' --spec specs/programs/vflag_too_early/vflag_too_early.sfg --analysis enforce");
    CHECK(t.status == 1);
    CHECK(t.out.find("ERROR: discipline of x violated (enforce)") != std::string::npos);
}""")
