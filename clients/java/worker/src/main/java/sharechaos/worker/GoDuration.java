package sharechaos.worker;

import java.time.Duration;

/**
 * Go's time.Duration text ("1.5s", "2m0s", "300ms", "1h2m3.5s", "0s"), as
 * ctp.Duration writes it into the worker config, and back (Go's String form,
 * for the start event's txn_timeout attribute, which the checker parses).
 */
final class GoDuration {
    private GoDuration() {
    }

    /** Parses what Go's time.ParseDuration accepts (units ns, us, µs, ms, s, m, h). */
    static Duration parse(String text) {
        String s = text;
        if (s.isEmpty()) {
            throw new IllegalArgumentException("parse duration: empty");
        }
        boolean neg = false;
        if (s.charAt(0) == '-' || s.charAt(0) == '+') {
            neg = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        long totalNs = 0;
        int i = 0;
        if (s.isEmpty()) {
            throw new IllegalArgumentException("parse duration " + text + ": no number");
        }
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("parse duration " + text + ": want a number at " + start);
            }
            double n = Double.parseDouble(s.substring(start, i));
            int ustart = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            String unit = s.substring(ustart, i);
            long mult;
            switch (unit) {
                case "ns": mult = 1L; break;
                case "us": case "\u00b5s": case "\u03bcs": mult = 1_000L; break;
                case "ms": mult = 1_000_000L; break;
                case "s": mult = 1_000_000_000L; break;
                case "m": mult = 60_000_000_000L; break;
                case "h": mult = 3_600_000_000_000L; break;
                default:
                    throw new IllegalArgumentException("parse duration " + text + ": unknown unit \"" + unit + "\"");
            }
            totalNs += Math.round(n * mult);
        }
        return Duration.ofNanos(neg ? -totalNs : totalNs);
    }

    /** Formats d as Go's time.Duration.String does ("10s", "1m30s", "1.5s", "250ms", "0s"). */
    static String format(Duration d) {
        long ns = d.toNanos();
        if (ns == 0) {
            return "0s";
        }
        StringBuilder b = new StringBuilder();
        if (ns < 0) {
            b.append('-');
            ns = -ns;
        }
        if (ns < 1_000_000_000L) {
            // Below a second: one unit, ns, µs or ms, with a fraction.
            if (ns < 1_000L) {
                return b.append(ns).append("ns").toString();
            }
            if (ns < 1_000_000L) {
                return b.append(fraction(ns, 1_000L)).append("\u00b5s").toString();
            }
            return b.append(fraction(ns, 1_000_000L)).append("ms").toString();
        }
        long h = ns / 3_600_000_000_000L;
        ns -= h * 3_600_000_000_000L;
        long m = ns / 60_000_000_000L;
        ns -= m * 60_000_000_000L;
        if (h > 0) {
            b.append(h).append('h');
        }
        if (h > 0 || m > 0) {
            b.append(m).append('m');
        }
        b.append(fraction(ns, 1_000_000_000L)).append('s');
        return b.toString();
    }

    /** v/unit with the fraction's trailing zeros dropped, as Go's fmtFrac. */
    private static String fraction(long v, long unit) {
        long whole = v / unit;
        long frac = v % unit;
        if (frac == 0) {
            return Long.toString(whole);
        }
        String digits = Long.toString(unit).substring(1); // "000..." as wide as the unit
        String f = String.format("%0" + digits.length() + "d", frac).replaceAll("0+$", "");
        return whole + "." + f;
    }
}
