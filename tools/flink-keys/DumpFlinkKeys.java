// Prints the configuration keys of Flink: every `ConfigOption` held in a static field of a class in
// the jars given as arguments, with its fallback and deprecated keys. Run by generate.sh, which
// writes the output to crates/engine/src/scenario/flink_keys_2_3.txt.
//
// Options of table connectors, formats, hints and catalogs (`WITH (...)` options of SQL DDL, not
// cluster configuration) and of internal task configuration (`StreamConfig`) are left out.
// A `@Documentation.SuffixOption` field gets its prefix (`metrics.reporter.<name>.interval`).

import java.io.File;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

public class DumpFlinkKeys {
    private static final Pattern EXCLUDED = Pattern.compile(
            "org\\.apache\\.flink\\.(connector\\.|formats\\.|table\\.(factories|catalog|connector|sinks"
                    + "|utils\\.python|runtime\\.arrow|module|secret|planner)\\."
                    + "|table\\.api\\.config\\.(LookupJoinHintOptions|MLPredictRuntimeConfigOptions"
                    + "|VectorSearchRuntimeConfigOptions)$"
                    + "|streaming\\.api\\.graph\\.StreamConfig$|streaming\\.api\\.operators\\.collect\\.).*");

    public static void main(String[] args) throws Exception {
        URL[] urls = new URL[args.length];
        for (int i = 0; i < args.length; i++) {
            urls[i] = new File(args[i]).toURI().toURL();
        }
        URLClassLoader loader = new URLClassLoader(urls, DumpFlinkKeys.class.getClassLoader());
        Class<?> optionClass = loader.loadClass("org.apache.flink.configuration.ConfigOption");
        // class name -> (key -> current key, or "" for a current key)
        Map<String, Map<String, String>> byClass = new TreeMap<>();
        Map<String, String> current = new TreeMap<>();
        for (String jar : args) {
            try (JarFile jf = new JarFile(jar)) {
                for (JarEntry e : Collections.list(jf.entries())) {
                    String n = e.getName();
                    if (!n.endsWith(".class") || !n.startsWith("org/apache/flink/") || n.contains("/shaded/")) {
                        continue;
                    }
                    String className = n.substring(0, n.length() - 6).replace('/', '.');
                    if (EXCLUDED.matcher(className).matches()) {
                        continue;
                    }
                    Field[] fields;
                    try {
                        fields = Class.forName(className, false, loader).getDeclaredFields();
                    } catch (Throwable t) {
                        continue;
                    }
                    for (Field f : fields) {
                        if (!Modifier.isStatic(f.getModifiers()) || !optionClass.isAssignableFrom(f.getType())) {
                            continue;
                        }
                        Object option;
                        try {
                            f.setAccessible(true);
                            option = f.get(null);
                        } catch (Throwable t) {
                            System.err.println("skipped " + className + "." + f.getName() + ": " + t);
                            continue;
                        }
                        if (option == null) {
                            continue;
                        }
                        String prefix = "";
                        for (Annotation a : f.getAnnotations()) {
                            if (a.annotationType().getSimpleName().equals("SuffixOption")) {
                                prefix = a.annotationType().getMethod("value").invoke(a) + ".";
                            }
                        }
                        String key = prefix + optionClass.getMethod("key").invoke(option);
                        Map<String, String> keys = byClass.computeIfAbsent(className, c -> new TreeMap<>());
                        keys.put(key, "");
                        current.put(key, "");
                        for (Object fb : (Iterable<?>) optionClass.getMethod("fallbackKeys").invoke(option)) {
                            String old = prefix + fb.getClass().getMethod("getKey").invoke(fb);
                            keys.putIfAbsent(old, key);
                        }
                    }
                }
            }
        }
        // A key is listed once, under the first class declaring it; a name that is some option's
        // current key is never listed as another's old name.
        Map<String, Boolean> listed = new TreeMap<>();
        for (Map.Entry<String, Map<String, String>> c : byClass.entrySet()) {
            List<String> lines = new ArrayList<>();
            for (Map.Entry<String, String> k : c.getValue().entrySet()) {
                if (listed.putIfAbsent(k.getKey(), true) != null) {
                    continue;
                }
                boolean old = !k.getValue().isEmpty() && !current.containsKey(k.getKey());
                lines.add(old ? k.getKey() + " -> " + k.getValue() : k.getKey());
            }
            if (!lines.isEmpty()) {
                System.out.println("# " + c.getKey());
                lines.forEach(System.out::println);
            }
        }
    }
}
