/* The coverage kernel of kernels.py (_cover_rows), in C: the same function, argument for
 * argument, for processes that should not load numba and LLVM (about 130 MB and 0.6 CPU s
 * per process; issue 32).  ckernel.py compiles this file with the machine's C compiler on
 * first use and keeps the module in ilpkit's cache; kernels.py falls back to numba where
 * that cannot be done.  Keep it in step with _cover_rows: tests/test_native_ckernel.py runs
 * both on the same plans.
 *
 * One Python call, cover_rows(*43 arguments) -> (covered, status, steps), as the numba
 * kernel: arrays are C-contiguous int64 ('q'), float64 ('d') or uint8 ('b'), checked here
 * (a wrong array is a TypeError, never a read out of bounds of the wrong type).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* literal kinds, argument modes, operators, answers, statuses: as kernels.py */
enum { FACT = 0, CMP = 1, BIND = 2, EQ = 3, NEQ = 4, TESTS = 5, ASK = 6 };
enum { CONST = 0, CHECK = 1, NEW = 2 };
enum { LT = 0, GT = 1, LE = 2, GE = 3, EQN = 4, NEN = 5, T_SAME = 6, T_DIFF = 7, T_TYPE = 8 };
enum { UNKNOWN = 0, YES = 1, NO = 2 };
enum { ASK_WIDTH = 4 };
#define ASK_PRIME 1000003LL
enum { UNDECIDED = 2 };
enum { OK = 0, OVER_BUDGET = 1, NOT_A_NUMBER = 2, PAUSED = 3 };

#define N_ARGS 43
/* each argument: q int64 array, d float64 array, b uint8 array, n int; upper case: written */
static const char SPEC[N_ARGS + 1] = "qnqqqqBnqqqqqqqqqqqqdqqqqqqqqqdqqqQnnQBQQQB";

static int compare(int64_t op, double x, double y)
{
    switch (op) {
    case LT: return x < y;
    case GT: return x > y;
    case LE: return x <= y;
    case GE: return x >= y;
    case EQN: return x == y;
    default: return x != y;
    }
}

/* Python's x % m for m > 0 (the numba kernel's modulo) */
static inline int64_t pymod(int64_t x, int64_t m)
{
    int64_t r = x % m;
    return r < 0 ? r + m : r;
}

typedef struct {
    const int64_t *head_data; int64_t head_arity;
    const int64_t *rows; int64_t n_rows;
    const int64_t *hcol; int64_t n_head;
    const int64_t *ranks; const int64_t *strides;
    uint8_t *memo; int64_t memo_len;
    const int64_t *kind; int64_t n_lits;
    const int64_t *tab, *arity, *keycol, *keymode, *keyval, *idx, *a_start, *a_end, *amode,
        *acol, *aval;
    const double *afl;
    const int64_t *cop, *once, *dep;
    const int64_t *tabs, *tab_at, *orders, *order_at, *starts, *start_at;
    const double *num;
    const int64_t *types, *ask_keys, *ask_vals; int64_t cap;
    int64_t *want; int64_t want_len;
    int64_t budget, pause;
    int64_t *state; uint8_t *covered; int64_t *slots, *pos, *hi; uint8_t *found;
} Args;

#define OPERAND(a) (A->amode[a] == CONST ? A->aval[a] : slots[A->aval[a]])

/* _cover_rows of kernels.py; returns the status, the steps in *steps_out */
static int64_t cover(const Args *A, int64_t *steps_out)
{
    const int64_t n_lits = A->n_lits, n_head = A->n_head;
    const int use_memo = A->memo_len > 0;
    int64_t *state = A->state, *slots = A->slots, *pos = A->pos, *hi = A->hi;
    uint8_t *covered = A->covered, *found = A->found, *memo = A->memo;
    const int64_t *kind = A->kind;
    int64_t steps = 0;
    int64_t e = state[0];
#define RETURN(status) do { *steps_out = steps; return (status); } while (0)
    while (e < A->n_rows) {
        const int64_t base = A->rows[e] * A->head_arity;
        int64_t mkey = 0, k;
        int enter;
        if (use_memo)
            for (int64_t j = 0; j < n_head; j++)
                mkey += A->ranks[base + A->hcol[j]] * A->strides[j];
        if (state[1] >= 0) { /* resume inside this example */
            k = state[1];
            enter = state[2] == 1;
            state[1] = -1;
        } else {
            if (use_memo) {
                uint8_t known = memo[mkey];
                if (known != 0) {
                    if (known == 1)
                        covered[e] = 1;
                    e++;
                    continue;
                }
            }
            for (int64_t j = 0; j < n_head; j++)
                slots[j] = A->head_data[base + A->hcol[j]];
            state[3] = 0;
            if (n_lits == 0) {
                covered[e] = 1;
                if (use_memo)
                    memo[mkey] = 1;
                e++;
                continue;
            }
            k = 0;
            enter = 1;
        }
        for (;;) {
            if (steps >= A->pause) {
                state[0] = e;
                state[1] = k;
                state[2] = enter ? 1 : 0;
                RETURN(PAUSED);
            }
            const int64_t kd = kind[k];
            int success = 0;
            if (kd == FACT) {
                const int64_t t = A->tab[k];
                const int64_t *data = A->tabs + A->tab_at[t];
                const int64_t data_len = A->tab_at[t + 1] - A->tab_at[t];
                const int64_t ar = A->arity[k];
                const int64_t kc = A->keycol[k];
                if (enter) {
                    found[k] = 0;
                    if (kc < 0) {
                        pos[k] = 0;
                        hi[k] = ar > 0 ? data_len / ar : 1;
                    } else {
                        const int64_t key =
                            A->keymode[k] == CONST ? A->keyval[k] : slots[A->keyval[k]];
                        const int64_t ix = A->idx[k];
                        const int64_t s_lo = A->start_at[ix];
                        const int64_t s_len = A->start_at[ix + 1] - s_lo;
                        if (s_len == 0) { /* a sparse index: bisect the rows sorted by key */
                            const int64_t o_lo = A->order_at[ix];
                            int64_t a = 0, b = A->order_at[ix + 1] - o_lo;
                            while (a < b) { /* first row whose key is >= key */
                                const int64_t m = (a + b) / 2;
                                if (data[A->orders[o_lo + m] * ar + kc] < key)
                                    a = m + 1;
                                else
                                    b = m;
                            }
                            pos[k] = a;
                            b = A->order_at[ix + 1] - o_lo;
                            while (a < b) { /* first row whose key is > key */
                                const int64_t m = (a + b) / 2;
                                if (data[A->orders[o_lo + m] * ar + kc] <= key)
                                    a = m + 1;
                                else
                                    b = m;
                            }
                            hi[k] = a;
                        } else if (key >= 0 && key + 1 < s_len) {
                            pos[k] = A->starts[s_lo + key];
                            hi[k] = A->starts[s_lo + key + 1];
                        } else {
                            pos[k] = 0;
                            hi[k] = 0;
                        }
                    }
                }
                int64_t p = pos[k];
                const int64_t h = hi[k];
                const int64_t s0 = A->a_start[k], s1 = A->a_end[k];
                const int64_t o_lo = kc >= 0 ? A->order_at[A->idx[k]] : 0;
                while (p < h) {
                    steps++;
                    const int64_t r = kc < 0 ? p : A->orders[o_lo + p];
                    p++;
                    const int64_t rb = r * ar;
                    int match = 1;
                    for (int64_t a = s0; a < s1; a++) {
                        const int64_t v = data[rb + A->acol[a]];
                        const int64_t m = A->amode[a];
                        if (m == CONST) {
                            if (v != A->aval[a]) { match = 0; break; }
                        } else if (m == CHECK) {
                            if (slots[A->aval[a]] != v) { match = 0; break; }
                        } else {
                            slots[A->aval[a]] = v;
                        }
                    }
                    if (match) { success = 1; break; }
                }
                pos[k] = p;
            } else {
                steps++;
                int64_t a = A->a_start[k];
                if (kd == BIND) {
                    slots[A->aval[a]] = OPERAND(a + 1);
                    success = 1;
                } else if (kd == EQ || kd == NEQ) {
                    const int64_t x = OPERAND(a), y = OPERAND(a + 1);
                    success = (x == y) == (kd == EQ);
                } else if (kd == CMP) {
                    const double x = A->amode[a] == CONST ? A->afl[a] : A->num[slots[A->aval[a]]];
                    const double y =
                        A->amode[a + 1] == CONST ? A->afl[a + 1] : A->num[slots[A->aval[a + 1]]];
                    if (isnan(x) || isnan(y))
                        RETURN(NOT_A_NUMBER);
                    success = compare(A->cop[k], x, y);
                } else if (kd == ASK) {
                    const int64_t n = A->a_end[k] - a;
                    const int64_t cap = A->cap;
                    int64_t hh = A->cop[k];
                    int64_t answer = UNKNOWN;
                    if (cap > 0) {
                        for (int64_t j = 0; j < n; j++)
                            hh = pymod(hh * ASK_PRIME + OPERAND(a + j), cap);
                        while (A->ask_vals[hh] != UNKNOWN) {
                            const int64_t b = hh * ASK_WIDTH;
                            int same = A->ask_keys[b] == A->cop[k];
                            for (int64_t j = 0; same && j < n; j++)
                                same = A->ask_keys[b + 1 + j] == OPERAND(a + j);
                            if (same) { answer = A->ask_vals[hh]; break; }
                            hh = (hh + 1) % cap;
                        }
                    }
                    if (answer == YES) {
                        success = 1;
                    } else if (answer == UNKNOWN) {
                        state[3] = 1;
                        const int64_t m = state[4];
                        if (m + 1 + n <= A->want_len) {
                            A->want[m] = k;
                            for (int64_t j = 0; j < n; j++)
                                A->want[m + 1 + j] = OPERAND(a + j);
                            state[4] = m + 1 + n;
                        }
                    }
                } else {
                    /* TESTS: pairs of argument entries (see kernels.py) */
                    int ok = 1;
                    const int64_t end = A->a_end[k];
                    while (a < end) {
                        if (ok) {
                            const int64_t op = A->acol[a];
                            const int64_t x = OPERAND(a);
                            if (op == T_TYPE) {
                                ok = (A->types[x] & A->aval[a + 1]) != 0;
                            } else {
                                const int64_t y = OPERAND(a + 1);
                                if (op == T_SAME) {
                                    ok = x == y;
                                } else if (op == T_DIFF) {
                                    ok = x != y;
                                } else {
                                    const double fx = A->num[x], fy = A->num[y];
                                    if (isnan(fx) || isnan(fy))
                                        RETURN(NOT_A_NUMBER);
                                    ok = compare(op, fx, fy);
                                }
                            }
                        }
                        if (A->acol[a + 1] == 1) {
                            if (ok) { success = 1; break; }
                            ok = 1;
                        }
                        a += 2;
                    }
                }
            }
            if (steps > A->budget)
                RETURN(OVER_BUDGET);
            if (success) {
                found[k] = 1;
                k++;
                if (k == n_lits) {
                    covered[e] = 1;
                    break;
                }
                enter = 1;
                continue;
            }
            /* failure at k: with no solution since entry, jump to the binder of its inputs */
            k = (kd == FACT && found[k] == 1) ? k - 1 : A->dep[k];
            while (k >= 0 && (kind[k] != FACT || A->once[k] == 1))
                k--;
            if (k < 0)
                break;
            enter = 0;
        }
        if (covered[e] == 0 && state[3] == 1)
            covered[e] = UNDECIDED;
        else if (use_memo)
            memo[mkey] = covered[e] == 1 ? 1 : 2;
        state[3] = 0;
        e++;
    }
    state[0] = e;
    RETURN(OK);
#undef RETURN
}

/* the buffer of argument i of function fn as want says (SPEC's letters), or -1 with a
   TypeError */
static int get_array_as(PyObject *obj, int i, char want, const char *fn, Py_buffer *view)
{
    const int writable = want >= 'A' && want <= 'Z';
    const char lower = writable ? (char)(want - 'A' + 'a') : want;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) != 0)
        return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    int good;
    if (lower == 'q')
        good = view->itemsize == 8 && (f[0] == 'q' || f[0] == 'l') && f[1] == 0;
    else if (lower == 'd')
        good = view->itemsize == 8 && f[0] == 'd' && f[1] == 0;
    else
        good = view->itemsize == 1 && f[0] == 'B' && f[1] == 0;
    if (!good || view->ndim != 1) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument %d must be a 1-D C-contiguous %s array%s "
                     "(got format '%s', itemsize %zd, %d dimensions)",
                     fn, i, lower == 'q' ? "int64" : lower == 'd' ? "float64" : "uint8",
                     writable ? ", writable" : "", view->format ? view->format : "B",
                     view->itemsize, view->ndim);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static int get_array(PyObject *obj, int i, Py_buffer *view)
{
    return get_array_as(obj, i, SPEC[i], "cover_rows", view);
}

/* known_rows(memo, row_keys, rows, out): when the memo knows the answer of every row
   (memo[row_keys[row]] != 0), the rows it answers yes (1) written in order to out's
   start, and their number; else -1, out unspecified.  Why: a refinement's parts that
   other clauses share are mostly decided already, and this replaces the five numpy
   calls that read their answers (about 6 us a clause) with one. */
static PyObject *py_known_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    static const char spec[] = "bqqQ";
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "known_rows takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_buffer views[4];
    int got = 0;
    PyObject *result = NULL;
    for (int i = 0; i < 4; i++) {
        if (get_array_as(args[i], i, spec[i], "known_rows", &views[i]) != 0)
            goto done;
        got = i + 1;
    }
    {
        const uint8_t *memo = (const uint8_t *)views[0].buf;
        const int64_t *keys = (const int64_t *)views[1].buf;
        const int64_t *rows = (const int64_t *)views[2].buf;
        int64_t *out = (int64_t *)views[3].buf;
        const int64_t n_memo = (int64_t)views[0].len, n_keys = (int64_t)(views[1].len / 8);
        const int64_t n = (int64_t)(views[2].len / 8);
        if ((int64_t)(views[3].len / 8) < n) {
            PyErr_SetString(PyExc_ValueError, "known_rows: out is shorter than rows");
            goto done;
        }
        int64_t k = 0, bad = 0;
        for (int64_t j = 0; j < n; j++) {
            const int64_t r = rows[j];
            if (r < 0 || r >= n_keys || keys[r] < 0 || keys[r] >= n_memo) {
                bad = 1;
                break;
            }
            const uint8_t answer = memo[keys[r]];
            if (answer == 0) {
                k = -1;
                break;
            }
            if (answer == 1)
                out[k++] = r;
        }
        if (bad)
            PyErr_SetString(PyExc_IndexError, "known_rows: a row or memo key out of range");
        else
            result = PyLong_FromLongLong((long long)k);
    }
done:
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&views[i]);
    return result;
}

static PyObject *py_cover_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != N_ARGS) {
        PyErr_Format(PyExc_TypeError, "cover_rows takes %d arguments (%zd given)", N_ARGS, nargs);
        return NULL;
    }
    Py_buffer views[N_ARGS];
    int64_t ints[N_ARGS];
    int got = 0;
    PyObject *result = NULL;
    memset(views, 0, sizeof(views));
    for (int i = 0; i < N_ARGS; i++) {
        if (SPEC[i] == 'n') {
            ints[i] = PyLong_AsLongLong(args[i]);
            if (ints[i] == -1 && PyErr_Occurred())
                goto done;
            views[i].obj = NULL;
        } else if (get_array(args[i], i, &views[i]) != 0) {
            goto done;
        }
        got = i + 1;
    }
#define Q(i) ((int64_t *)views[i].buf)
#define D(i) ((double *)views[i].buf)
#define B(i) ((uint8_t *)views[i].buf)
#define LEN(i) ((int64_t)(views[i].len / views[i].itemsize))
    {
        const Args A = {
            Q(0), ints[1], Q(2), LEN(2), Q(3), LEN(3), Q(4), Q(5), B(6), LEN(6),
            Q(8), LEN(8), Q(9), Q(10), Q(11), Q(12), Q(13), Q(14), Q(15), Q(16), Q(17),
            Q(18), Q(19), D(20), Q(21), Q(22), Q(23),
            Q(24), Q(25), Q(26), Q(27), Q(28), Q(29), D(30),
            Q(31), Q(32), Q(33), LEN(33), Q(34), LEN(34), ints[35], ints[36],
            Q(37), B(38), Q(39), Q(40), Q(41), B(42),
        };
        if (LEN(37) < 5 || LEN(38) < A.n_rows) {
            PyErr_SetString(PyExc_ValueError, "cover_rows: state needs 5 entries and covered "
                                              "one per row");
            goto done;
        }
        int64_t steps = 0, status;
        Py_BEGIN_ALLOW_THREADS
        status = cover(&A, &steps);
        Py_END_ALLOW_THREADS
        result = Py_BuildValue("(OLL)", args[38], (long long)status, (long long)steps);
    }
#undef Q
#undef D
#undef B
#undef LEN
done:
    for (int i = 0; i < got; i++)
        if (views[i].obj != NULL)
            PyBuffer_Release(&views[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"cover_rows", (PyCFunction)(void (*)(void))py_cover_rows, METH_FASTCALL,
     "The coverage kernel (kernels._cover_rows), compiled from C."},
    {"known_rows", (PyCFunction)(void (*)(void))py_known_rows, METH_FASTCALL,
     "The rows a part's memo answers yes, or -1 when it does not know them all "
     "(kernels._known_rows), compiled from C."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ilpkit_cover_rows", "ilpkit's coverage kernel in C", -1, methods,
};

PyMODINIT_FUNC PyInit__ilpkit_cover_rows(void) { return PyModule_Create(&module); }
