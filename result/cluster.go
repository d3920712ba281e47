package result

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ClusterInfo is the cluster a run tested, in every report: which Kafka,
// where, which brokers, and what they advertise.
type ClusterInfo struct {
	// Release is the Kafka release the run asked for (--kafka-version),
	// "" when it named an image or none.
	Release string `json:"release,omitempty"`
	// KafkaVersion is the broker's version as its ApiVersions answer tells
	// it (the newest release whose API ranges match; Kafka has no
	// version RPC), e.g. "v4.2"; VersionSource says how it was found.
	KafkaVersion  string `json:"kafka_version"`
	VersionSource string `json:"kafka_version_source,omitempty"`
	// Image is the docker image or "kfake" build; Bootstrap the addresses
	// the clients dialed.
	Image string `json:"image,omitempty"`
	// JVM is how the suite ran the brokers' JVM (the docker backend's
	// --broker-jit), "" where it did not start them.
	JVM string `json:"jvm,omitempty"`
	// ClientSecurity is how the clients reached the brokers when more than
	// PLAINTEXT (protocol, mechanism, user, the CA and certificate files;
	// never the password).
	ClientSecurity string `json:"client_security,omitempty"`
	// BrokerConfigs are the broker settings the run gave over the backend's
	// defaults (--broker-config, kip1289.pending.lock), where it started
	// the brokers.
	BrokerConfigs map[string]string `json:"broker_configs,omitempty"`
	Bootstrap     []string          `json:"bootstrap,omitempty"`
	BrokerIDs     []int32           `json:"broker_ids"`
	Brokers       int               `json:"brokers"`
	// Features are the finalized feature levels (share.version,
	// transaction.version, ...), name -> level.
	Features map[string]int16 `json:"features,omitempty"`
	// GroupDefaults are the share-group configs (share.*, errors.*) a group
	// has without any set, as the brokers answer DescribeConfigs on the
	// GROUP resource, with their source: how releases differ.
	GroupDefaults map[string]string `json:"group_defaults,omitempty"`
	// KIP1289Keys are the API keys asked for and whether the broker
	// advertises them.
	KIP1289Keys       []int16 `json:"kip1289_keys,omitempty"`
	KIP1289Advertised bool    `json:"kip1289_advertised"`
}

// Rows are the facts a report's header prints, label then value.
func (c *ClusterInfo) Rows() [][2]string {
	if c == nil {
		return [][2]string{{"kafka version", "unknown (the cluster did not answer)"}}
	}
	v := c.KafkaVersion
	if c.VersionSource != "" {
		v += " (" + c.VersionSource + ")"
	}
	ids := make([]string, len(c.BrokerIDs))
	for i, id := range c.BrokerIDs {
		ids[i] = fmt.Sprint(id)
	}
	var feats []string
	for _, k := range slices.Sorted(maps.Keys(c.Features)) {
		feats = append(feats, fmt.Sprintf("%s=%d", k, c.Features[k]))
	}
	kip := "not advertised"
	if c.KIP1289Advertised {
		kip = "advertised"
	}
	if c.Release != "" {
		v = c.Release + ", answers as " + v
	}
	rows := [][2]string{{"kafka version", v}}
	if c.Image != "" {
		rows = append(rows, [2]string{"kafka image", c.Image})
	}
	if c.JVM != "" {
		rows = append(rows, [2]string{"broker jvm", c.JVM})
	}
	if len(c.BrokerConfigs) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(c.BrokerConfigs)) {
			kv = append(kv, k+"="+c.BrokerConfigs[k])
		}
		rows = append(rows, [2]string{"broker settings given", strings.Join(kv, ", ")})
	}
	if c.ClientSecurity != "" {
		rows = append(rows, [2]string{"client security", c.ClientSecurity})
	}
	if len(c.Bootstrap) > 0 {
		rows = append(rows, [2]string{"bootstrap", strings.Join(c.Bootstrap, ",")})
	}
	rows = append(rows, [2]string{"brokers", fmt.Sprintf("%d (ids %s)", c.Brokers, strings.Join(ids, ","))})
	if len(feats) > 0 {
		rows = append(rows, [2]string{"features", strings.Join(feats, ", ")})
	}
	if len(c.GroupDefaults) > 0 {
		var gd []string
		for _, k := range slices.Sorted(maps.Keys(c.GroupDefaults)) {
			gd = append(gd, k+"="+c.GroupDefaults[k])
		}
		rows = append(rows, [2]string{"share-group config defaults", strings.Join(gd, ", ")})
	}
	if len(c.KIP1289Keys) > 0 {
		rows = append(rows, [2]string{"KIP-1289 keys", fmt.Sprintf("%v %s", c.KIP1289Keys, kip)})
	}
	return rows
}
