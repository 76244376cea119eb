// The .sfg language: disciplines (docs/language.md, thesis §3.2.2) and programs (docs/programs.md).
// Generated at build time with Debian's antlr4 tool into the C++ target.
grammar Sfg;

spec : item* EOF ;

item
    : 'threads' ID (',' ID)* ';'                       # threadsDecl
    | 'lock' ID (',' ID)* ';'                          # lockDecl
    | 'volatile' ID (',' ID)* ';'                      # volatileDecl
    | 'barrier' ID '(' ID (',' ID)* ')' ';'            # barrierDecl
    | 'queue' ID (',' ID)* ';'                         # queueDecl
    | 'cond' ID (',' ID)* ';'                          # condDecl
    | 'group' ID '=' idList? ';'                       # groupDecl
    | 'discipline' ID '=' disc ';'                     # disciplineDecl
    | 'var' ID (',' ID)* (':' disc)? ';'               # varDecl
    | program                                          # programDecl
    ;

// Disjunction is loosest, then sequence; both left-associative (docs/language.md).
disc : seq (OR seq)* ;
seq  : atom (SEQ label atom)* ;

// EX, RS and LOCK take any thread list here so that sema can say what is wrong with it.
atom
    : 'EX' '(' idList? ')'                             # exAtom
    | 'EX' '(' 'each' ID ')'                           # eachAtom
    | 'RS' '(' idList? ')'                             # rsAtom
    | 'LOCK' '(' ID ':' idList? ')'                    # lockAtom
    | '[' disc ']' label                               # loopAtom
    | '(' disc ')'                                     # parenAtom
    | ID                                               # nameAtom
    ;

idList : ID (',' ID)* ;

label
    : '^' ID                                           # caretNamed
    | '^' 'fork'                                       # caretFork
    | '^' 'join'                                       # caretJoin
    | '^' '(' valueMech ')'                            # caretValue
    | '{' mech '}'                                     # braceLabel
    ;

mech
    : ID                                               # namedMech
    | valueMech                                        # valueMechAlt
    | 'fork' '(' ID '->' idList ')'                    # forkMech
    | 'join' '(' idList '->' ID ')'                    # joinMech
    ;

// v == K (thesis §5.1, vflag); sema checks that K fits in 64 bits.
valueMech : ID '==' '-'? INT ;

// ---- Programs (model checking) ----
program : 'program' ID '{' programItem* '}' ;

programItem
    : 'init' ID '=' '-'? INT ';'                       # initItem
    | 'thread' ID block                                # threadItem
    ;

block : '{' stmt* '}' ;

stmt
    : 'let' ID '=' expr ';'                            # letStmt
    | ID '=' expr ';'                                  # assignStmt
    // let r = xchg v e; / cas v e1 e2; / fadd v e; (atomic read-modify-write of a volatile):
    // like enq and deq, the operation's word is a name here, checked by the front end.
    | 'let' ID '=' ID ID expr expr? ';'                # letRmwStmt
    | ID '=' ID ID expr expr? ';'                      # assignRmwStmt
    | 'read' ID ';'                                    # readStmt
    | 'write' ID ';'                                   # writeStmt
    | 'acq' ID ';'                                     # acqStmt
    | 'rel' ID ';'                                     # relStmt
    | 'fork' idList ';'                                # forkStmt
    | 'join' idList ';'                                # joinStmt
    | 'barrier' ID ';'                                 # barrierStmt
    | 'await' expr ';'                                 # awaitStmt
    | 'assert' expr ';'                                # assertStmt
    | 'if' '(' expr ')' block ('else' (block | stmt))? # ifStmt
    | 'while' '(' expr ')' block                       # whileStmt
    | 'repeat' INT block                               # repeatStmt
    | 'skip' ';'                                       # skipStmt
    | 'deterministic' block                            # deterministicStmt
    // enq q x; / deq q x; (thesis §5.1, q(o)) and wait c m; notify c; notifyall c; (condition
    // variables): the first word is a statement word only here, a name elsewhere; the front end
    // checks it.
    | ID ID ID ';'                                     # queueStmt
    | ID ID ';'                                        # wordStmt
    ;

// C precedence, all binary operators left-associative.
expr
    : op=('-' | '!') expr                              # unaryExpr
    | expr op=('*' | '/' | '%') expr                   # mulExpr
    | expr op=('+' | '-') expr                         # addExpr
    | expr op=('<' | '<=' | '>' | '>=') expr           # relExpr
    | expr op=('==' | '!=') expr                       # eqExpr
    | expr op='&&' expr                                # andExpr
    | expr op='||' expr                                # orExpr
    | '(' expr ')'                                     # parenExpr
    | INT                                              # intExpr
    | ID                                               # nameExpr
    ;

OR  : '|' | '\u2294' ;   // ⊔
SEQ : '|>' | '\u25B7' ;  // ▷

INT : [0-9]+ ;
ID  : [A-Za-z_] [A-Za-z0-9_]* ;

WS            : [ \t\r\n\f]+ -> skip ;
LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
// An unterminated comment runs to the end of the file; the front end reports it.
BLOCK_COMMENT : '/*' .*? ('*/' | EOF) -> channel(HIDDEN) ;
