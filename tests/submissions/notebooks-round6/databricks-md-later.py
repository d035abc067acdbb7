# Databricks notebook source
import numpy as np

# COMMAND ----------

# MAGIC %md-sandbox
# MAGIC
# MAGIC def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
# MAGIC     x = features.reshape(features.shape[0], -1)
# MAGIC     h = np.maximum(0.0, x @ W1 + b1)
# MAGIC     h = np.maximum(0.0, h @ W2 + b2)
# MAGIC     return h @ W3 + b3

# COMMAND ----------

print('done')
