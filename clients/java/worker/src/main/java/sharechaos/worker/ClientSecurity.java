package sharechaos.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The worker config's "client" (Go's clientcfg.Config): TLS and SASL settings
 * turned back into the Java clients' properties they were read from
 * (--client-config is a Java properties file). The SASL password never is in
 * the config file: it comes from SHARECHAOS_SASL_PASSWORD, as for the Go worker.
 */
final class ClientSecurity {
    static final String ENV_PASSWORD = "SHARECHAOS_SASL_PASSWORD";

    String protocol = "";
    String mechanism = "";
    String username = "";
    String caFile = "";
    String certFile = "";
    String keyFile = "";
    boolean skipHostnameCheck;

    List<String> problems() {
        List<String> p = new ArrayList<>();
        switch (protocol) {
            case "":
            case "PLAINTEXT":
            case "SSL":
            case "SASL_PLAINTEXT":
            case "SASL_SSL":
                break;
            default:
                p.add("security_protocol \"" + protocol + "\": unknown");
        }
        switch (mechanism) {
            case "":
            case "PLAIN":
            case "SCRAM-SHA-256":
            case "SCRAM-SHA-512":
                break;
            default:
                p.add("sasl_mechanism \"" + mechanism + "\": unknown");
        }
        return p;
    }

    /** Adds the security settings to props (nothing for plaintext). */
    void apply(Properties props) throws IOException {
        if (protocol.isEmpty() || protocol.equals("PLAINTEXT")) {
            return;
        }
        props.put("security.protocol", protocol);
        if (protocol.startsWith("SASL")) {
            props.put("sasl.mechanism", mechanism);
            String module = mechanism.equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            String password = System.getenv(ENV_PASSWORD);
            props.put("sasl.jaas.config", module + " required username=\"" + escape(username) + "\" password=\""
                    + escape(password == null ? "" : password) + "\";");
        }
        if (protocol.endsWith("SSL")) {
            if (!caFile.isEmpty()) {
                props.put("ssl.truststore.type", "PEM");
                props.put("ssl.truststore.location", caFile);
            }
            if (!certFile.isEmpty()) {
                props.put("ssl.keystore.type", "PEM");
                props.put("ssl.keystore.certificate.chain", read(certFile));
                props.put("ssl.keystore.key", read(keyFile));
            }
            if (skipHostnameCheck) {
                props.put("ssl.endpoint.identification.algorithm", "");
            }
        }
    }

    private static String read(String path) throws IOException {
        return new String(Files.readAllBytes(Path.of(path)), StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
