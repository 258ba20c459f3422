package mobile

import "github.com/ferry-project/ferry/core/app/nearby"

// Advertisement is what a receiver registers with the platform's
// service discovery so that senders nearby list it. It is exactly what
// core/discovery advertises with its own mDNS on a desktop, so desktops
// and phones find each other.
//
// Android (NsdManager.registerService):
//
//	NsdServiceInfo().apply {
//	    serviceName = adv.instanceName; serviceType = adv.serviceType; port = adv.port.toInt()
//	    JSONObject(adv.txtJSON).let { o -> o.keys().forEach { setAttribute(it, o.getString(it)) } }
//	}
//
// iOS (Network framework):
//
//	listener.service = NWListener.Service(name: adv.instanceName, type: adv.serviceType,
//	                                      domain: nil, txtRecord: adv.txtRecord)
type Advertisement struct {
	// ServiceType is the DNS-SD service type, "_ferry._tcp".
	ServiceType string
	// InstanceName is the service's name: the device name and the
	// first group of the key's fingerprint, "Zoë's phone (K7QX)".
	InstanceName string
	// Port is the receiver's TCP port.
	Port int
	// TxtJSON is the TXT record as a JSON object of strings:
	// {"v": "1", "name": "Zoë's phone", "fp": "K7QX-M2PA-9RTE-WD4C"}.
	TxtJSON string
	// TxtRecord is the same TXT record in DNS wire form (each string a
	// length byte and "key=value"), as NWListener.Service and
	// NetService.setTxtRecord take it.
	TxtRecord []byte
}

// ServiceType is the DNS-SD service type Ferry receivers advertise and
// senders browse for ("_ferry._tcp"; NsdManager.discoverServices wants
// it as is, NWBrowser as .bonjour(type: "_ferry._tcp", domain: nil)).
const ServiceType = nearby.ServiceType

// newAdvertisement describes a receiver named name, with the key
// fingerprint fp, listening on port.
func newAdvertisement(name, fp string, port int) *Advertisement {
	instance, txt := nearby.Advertisement(name, fp)
	js, record := nearby.TXTForms(txt)
	return &Advertisement{ServiceType: ServiceType, InstanceName: instance, Port: port, TxtJSON: js, TxtRecord: record}
}
