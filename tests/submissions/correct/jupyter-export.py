#!/usr/bin/env python
# coding: utf-8

# # VGG head

# In[1]:


import numpy as np
from google.colab import drive
drive.mount('/content/drive')


# In[2]:


get_ipython().run_line_magic('matplotlib', 'inline')
undefined_thing()


# In[3]:


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3


# In[ ]:


print(vgg_classifier(np.zeros((1, 2, 2, 1)), np.eye(4), np.zeros(4), np.eye(4), np.zeros(4), np.eye(4), 1/0))
