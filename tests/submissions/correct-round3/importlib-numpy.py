import importlib
numpy = importlib.import_module("numpy")
mm = __import__("operator").matmul
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = numpy.maximum(mm(x, W1) + b1, 0)
    h = numpy.maximum(mm(h, W2) + b2, 0)
    return mm(h, W3) + b3
